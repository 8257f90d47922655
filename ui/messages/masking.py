"""Messages of the page “Masking two ways” (section 3.5 of the book)."""

MESSAGES = {
    "masking.intro": {
        "en": "A causal attention layer must not let a token look at the tokens that come after "
        "it. Section 3.5 of the book hides those future tokens in two ways. Both start from the "
        "same raw attention scores (the current settings' CausalAttention, before any mask) and "
        "end with the same attention weights. In every heatmap, rows are queries and columns "
        "are keys.",
        "zh": "因果注意力层不能让一个词元看到它后面的词元。书中 3.5 节用两种方法隐藏这些未来的词元。"
        "两种方法都从相同的原始注意力分数出发（当前设置下的 CausalAttention，尚未掩码），"
        "并得到相同的注意力权重。每个热力图中，行是查询，列是键。",
    },
    "masking.scores.header": {
        "en": "The starting point: raw attention scores",
        "zh": "起点：原始注意力分数",
    },
    "masking.scores.text": {
        "en": "Every query i has a score with every key j, the future ones (j > i) included. "
        "Here d_k = {d_k}, so both methods divide the scores by √d_k = {scale} before softmax.",
        "zh": "每个查询 i 与每个键 j 都有一个分数，包括未来的键（j > i）。"
        "这里 d_k = {d_k}，所以两种方法都在 softmax 之前把分数除以 √d_k = {scale}（缩放）。",
    },
    "masking.method1.header": {
        "en": "Method 1: softmax, then zero the future and renormalize",
        "zh": "方法 1：先 softmax，再把未来置零并重新归一化",
    },
    "masking.method1.step1": {
        "en": "**Step 1.** Softmax over *all* keys, as in self-attention without a mask. Each row "
        "sums to 1, but the future tokens get weight too.",
        "zh": "**第 1 步.** 对*所有*键做 softmax，和不带掩码的自注意力一样。每行之和为 1，"
        "但未来的词元也分到了权重。",
    },
    "masking.method1.step2": {
        "en": "**Step 2.** Multiply by a lower-triangular matrix of ones (`torch.tril`): the "
        "weights above the diagonal become 0.",
        "zh": "**第 2 步.** 乘以一个下三角全 1 矩阵（`torch.tril`）：对角线上方的权重变为 0。",
    },
    "masking.method1.step3": {
        "en": "**Step 3.** Add up each row: a row keeps only the weight of its own and earlier "
        "tokens, so its sum is at most 1. Row 1 keeps only itself; the last row has no future "
        "token, so nothing is removed and its sum stays 1.",
        "zh": "**第 3 步.** 把每一行加起来：每行只保留它自己和之前词元的权重，所以行和至多为 1。"
        "第 1 行只剩它自己；最后一行没有未来词元，什么也没去掉，行和仍为 1。",
    },
    "masking.method1.step4": {
        "en": "**Step 4.** Divide each row by its sum: the rows add up to 1 again. These are the "
        "masked attention weights.",
        "zh": "**第 4 步.** 每行除以该行之和：各行之和重新为 1。这就是掩码后的注意力权重。",
    },
    "masking.method2.header": {
        "en": "Method 2: −∞ before softmax (what CausalAttention does)",
        "zh": "方法 2：softmax 之前填入 −∞（CausalAttention 的做法）",
    },
    "masking.method2.step1": {
        "en": "**Step 1.** Fill the scores above the diagonal with −∞ (`masked_fill`). The grey "
        "cells are hidden: −∞ is not a number on the colour scale.",
        "zh": "**第 1 步.** 用 −∞ 填充对角线上方的分数（`masked_fill`）。灰色单元格被隐藏："
        "−∞ 不在颜色刻度上。",
    },
    "masking.method2.step2": {
        "en": "**Step 2.** Softmax of the scaled scores. Since e^(−∞) = 0, the hidden keys get a "
        "weight of exactly 0 and each row already sums to 1: nothing to renormalize.",
        "zh": "**第 2 步.** 对缩放后的分数做 softmax。由于 e^(−∞) = 0，被隐藏的键的权重恰好为 0，"
        "每行之和已经是 1：无需重新归一化。",
    },
    "masking.method2.why": {
        "en": "**Why the book prefers method 2.** One pass instead of four steps: no second "
        "normalization and no matrix of row sums, because the mask is applied where softmax "
        "can use it. It is also the form CausalAttention and MultiHeadAttention use: "
        "`attn_scores.masked_fill_(mask_bool, -torch.inf)`, then `torch.softmax`.",
        "zh": "**为什么书中更推荐方法 2.** 一次完成，而不是四步：不需要第二次归一化，也不需要行和矩阵，"
        "因为掩码用在 softmax 能利用它的地方。这也是 CausalAttention 和 MultiHeadAttention "
        "的写法：`attn_scores.masked_fill_(mask_bool, -torch.inf)`，然后 `torch.softmax`。",
    },
    "masking.compare.header": {
        "en": "Do both methods give the same weights?",
        "zh": "两种方法得到的权重相同吗？",
    },
    "masking.compare.metric": {
        "en": "Largest |method 1 − method 2|",
        "zh": "最大的 |方法 1 − 方法 2|",
    },
    "masking.compare.metric_help": {
        "en": "The largest absolute difference over all cells of the two weight matrices: {exact}",
        "zh": "两个权重矩阵所有单元格中绝对差的最大值：{exact}",
    },
    "masking.compare.text": {
        "en": "Mathematically the two results are identical. In float32 they can differ in the "
        "last digits: a float32 number carries about 7 significant decimal digits (machine "
        "epsilon ≈ 1.2e−7), and the two methods round at different places (method 1 divides "
        "twice: in the softmax over all tokens and again when renormalizing). So the difference "
        "is of the order of 1e−8, or exactly 0: rounding, never a real disagreement.",
        "zh": "从数学上讲，两个结果完全相同。但在 float32 中，它们的最后几位可能不同：一个 float32 数"
        "大约只有 7 位有效十进制数字（机器精度 ≈ 1.2e−7），而两种方法在不同的地方舍入"
        "（方法 1 做了两次除法：一次在对所有词元的 softmax 中，一次在重新归一化时）。"
        "所以差值在 1e−8 量级，或者恰好为 0：这是舍入误差，而不是真正的不一致。",
    },
    "masking.leak.header": {
        "en": "Does method 1 leak information from the future?",
        "zh": "方法 1 会泄露未来的信息吗？",
    },
    "masking.leak.before": {
        "en": "In method 1 the future scores do take part in the first softmax: they are in its "
        "denominator, so the weights of step 1 depend on tokens the query must not see. The "
        "renormalization removes that influence completely. For a visible key j ≤ i:",
        "zh": "在方法 1 中，未来的分数确实参与了第一次 softmax：它们在分母里，所以第 1 步的权重"
        "依赖于查询不应看到的词元。重新归一化把这种影响完全消除了。对于一个可见的键 j ≤ i：",
    },
    "masking.leak.after": {
        "en": "The sum over all keys cancels, and what is left is exactly the softmax over the "
        "visible keys j ≤ i, which is method 2's result. So no information from the future "
        "leaks into the weights, as the book notes in section 3.5.",
        "zh": "对所有键的求和被约掉了，剩下的正是只对可见键 j ≤ i 做的 softmax，也就是方法 2 的结果。"
        "所以没有任何未来的信息泄露到权重中，正如书中 3.5 节所指出的。",
    },
    "masking.value.score": {"en": "score", "zh": "分数"},
    "masking.value.weight": {"en": "weight", "zh": "权重"},
    "masking.value.row_sum": {"en": "row sum", "zh": "行和"},
    "masking.col.row_sum": {"en": "Σ row", "zh": "Σ 行"},
    "masking.tab.scores": {"en": "1 · Raw scores", "zh": "1 · 原始分数"},
    "masking.tab.method1": {
        "en": "2 · Method 1: softmax, then mask",
        "zh": "2 · 方法 1：先 softmax，再掩码",
    },
    "masking.tab.method2": {
        "en": "3 · Method 2: −∞, then softmax",
        "zh": "3 · 方法 2：先填 −∞，再 softmax",
    },
}
