"""Messages of the page “Multi-head” (section 3.6 of the book)."""

MESSAGES = {
    "multi_head.intro": {
        "en": "Multi-head attention runs several causal attention *heads* side by side on the same "
        "tokens. Each head has its own query, key and value projections, so each can learn to "
        "attend to different things; their results are joined. The book builds it twice: first "
        "as a wrapper around independent CausalAttention heads, then as one efficient class. "
        "Number of heads: **{heads}** (sidebar).",
        "zh": "多头注意力让多个因果注意力“头”在同一组词元上并行运行。每个头都有自己的查询、键、值投影，"
        "因此每个头可以学会关注不同的内容；它们的结果再拼接起来。书中实现了两次：先是把独立的 "
        "CausalAttention 头包装在一起，然后是一个高效的类。头数：**{heads}**（侧边栏）。",
    },
    "multi_head.one_head": {
        "en": "With 1 head there is nothing to split: the wrapper is a single CausalAttention "
        "(as on the other pages), and MultiHeadAttention would only add out_proj. Choose 2 or "
        "more heads in the sidebar to compare the two classes.",
        "zh": "只有 1 个头时没有什么可拆分的：包装类就是单个 CausalAttention（与其他页面相同），"
        "而 MultiHeadAttention 只会多一个 out_proj。请在侧边栏选择 2 个或更多的头来比较这两个类。",
    },
    "multi_head.wrapper.header": {
        "en": "(a) MultiHeadAttentionWrapper: independent heads, concatenated",
        "zh": "(a) MultiHeadAttentionWrapper：独立的头，拼接起来",
    },
    "multi_head.wrapper.text": {
        "en": "`MultiHeadAttentionWrapper(d_in, d_out, context_length, dropout, num_heads)` keeps "
        "a list of {heads} CausalAttention modules, each with its own W_query, W_key and W_value "
        "of width d_out = {d_out}. Its `forward` runs them one after another and concatenates "
        "their context vectors: output width {heads} × {d_out} = {width}. Head 1 is created "
        "first after the seed, so it equals the single CausalAttention of the other pages.",
        "zh": "`MultiHeadAttentionWrapper(d_in, d_out, context_length, dropout, num_heads)` 保存一个由 "
        "{heads} 个 CausalAttention 模块组成的列表，每个模块都有自己的 W_query、W_key 和 W_value，"
        "宽度为 d_out = {d_out}。它的 `forward` 依次运行这些头，并把它们的上下文向量拼接起来："
        "输出宽度为 {heads} × {d_out} = {width}。头 1 在设定随机种子后最先创建，"
        "所以它等于其他页面中的单个 CausalAttention。",
    },
    "multi_head.fused.header": {
        "en": "(b) MultiHeadAttention: one projection, split into heads",
        "zh": "(b) MultiHeadAttention：一个投影，拆分成多个头",
    },
    "multi_head.fused.text": {
        "en": "`MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads)` has one "
        "W_query (and one W_key, one W_value) of total width d_out = {d_out}. The queries are "
        "reshaped into {heads:head|heads} of head_dim = d_out / num_heads = {head_dim:feature|features} "
        "(`view`, then `transpose`), all heads are computed by one batched matrix product, "
        "joined back, and `out_proj` (a d_out × d_out linear layer) mixes the heads. "
        "Output width: d_out = {d_out}.",
        "zh": "`MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads)` 只有一个 "
        "W_query（以及一个 W_key、一个 W_value），总宽度为 d_out = {d_out}。查询被重塑成 {heads} 个头，"
        "每个头 head_dim = d_out / num_heads = {head_dim} 个特征（先 `view`，再 `transpose`），"
        "所有头由一次批量矩阵乘法同时计算，再拼接回去，最后 `out_proj`（一个 d_out × d_out 的线性层）"
        "把各个头混合起来。输出宽度：d_out = {d_out}。",
    },
    "multi_head.fused.not_divisible": {
        "en": "MultiHeadAttention cannot split d_out = {d_out} into {heads:head|heads}: each head gets "
        "d_out / num_heads features, so d_out must be divisible by the number of heads (the "
        "class asserts d_out % num_heads == 0). With d_out = {d_out}, valid numbers of heads "
        "are {valid_heads}; with {heads:head|heads}, valid values of d_out are {valid_d_out}. The "
        "wrapper above has no such rule: each of its heads has its own d_out.",
        "zh": "MultiHeadAttention 无法把 d_out = {d_out} 拆分成 {heads} 个头：每个头得到 "
        "d_out / num_heads 个特征，所以 d_out 必须能被头数整除（该类断言 d_out % num_heads == 0）。"
        "d_out = {d_out} 时，可用的头数为 {valid_heads}；{heads} 个头时，可用的 d_out 为 "
        "{valid_d_out}。上面的包装类没有这个限制：它的每个头都有自己的 d_out。",
    },
    "multi_head.weights.label": {
        "en": "Attention weights of each head",
        "zh": "每个头的注意力权重",
    },
    "multi_head.weights.caption": {
        "en": "One heatmap per head: rows are queries, columns are keys; the future keys have "
        "weight 0 (the causal mask).",
        "zh": "每个头一个热力图：行是查询，列是键；未来的键权重为 0（因果掩码）。",
    },
    "multi_head.weights.dropped": {
        "en": "Dropout is active: these are the weights after dropout (kept weights × 1/(1−p)), "
        "the ones the context vectors are computed from.",
        "zh": "Dropout 已生效：这些是 dropout 之后的权重（保留的权重 × 1/(1−p)），"
        "上下文向量就是用它们计算的。",
    },
    "multi_head.head_title": {"en": "Head {index}", "zh": "头 {index}"},
    "multi_head.numbers": {"en": "Each head's weights as tables", "zh": "以表格显示每个头的权重"},
    "multi_head.shapes.label": {"en": "Tensor shapes, step by step", "zh": "张量形状，一步一步"},
    "multi_head.shapes.step": {"en": "step", "zh": "步骤"},
    "multi_head.shapes.shape": {"en": "shape", "zh": "形状"},
    "multi_head.shapes.meaning": {"en": "what happens", "zh": "发生了什么"},
    "multi_head.shapes.caption": {
        "en": "b = batch ({batch} here), num_tokens = {tokens}, d_in = {d_in}, heads = {heads}.",
        "zh": "b = 批次大小（这里为 {batch}），num_tokens = {tokens}，d_in = {d_in}，heads = {heads}。",
    },
    "multi_head.step.x": {
        "en": "the input: a batch of copies of the sentence, one embedding per token",
        "zh": "输入：由句子的副本组成的批次，每个词元一个嵌入向量",
    },
    "multi_head.step.wrapper.queries": {
        "en": "each head projects x with its own W_query (and W_key, W_value)",
        "zh": "每个头用自己的 W_query（以及 W_key、W_value）投影 x",
    },
    "multi_head.step.fused.queries": {
        "en": "one projection computes the queries of all heads at once",
        "zh": "一次投影同时算出所有头的查询",
    },
    "multi_head.step.view": {
        "en": "split the last axis into heads × head_dim",
        "zh": "把最后一个轴拆成 头数 × head_dim",
    },
    "multi_head.step.transpose": {
        "en": "put the head axis before the tokens: one (tokens × head_dim) matrix per head",
        "zh": "把头所在的轴移到词元之前：每个头一个 (词元数 × head_dim) 矩阵",
    },
    "multi_head.step.attn_scores": {
        "en": "every query against every key, per head",
        "zh": "每个头中，每个查询与每个键的点积",
    },
    "multi_head.step.attn_weights": {
        "en": "causal mask (−∞), scaling and softmax: each row sums to 1",
        "zh": "因果掩码（−∞）、缩放和 softmax：每行之和为 1",
    },
    "multi_head.step.head_context": {
        "en": "each head's context vectors: weighted sums of its values",
        "zh": "每个头的上下文向量：值向量的加权和",
    },
    "multi_head.step.concat": {
        "en": "the heads' context vectors side by side",
        "zh": "把各个头的上下文向量并排拼接",
    },
    "multi_head.step.transpose_back": {"en": "tokens first again", "zh": "词元轴重新回到前面"},
    "multi_head.step.join": {
        "en": "join the heads: num_heads × head_dim = d_out",
        "zh": "拼接各个头：num_heads × head_dim = d_out",
    },
    "multi_head.step.out_proj": {
        "en": "a linear layer mixes the heads' features",
        "zh": "一个线性层混合各个头的特征",
    },
    "multi_head.outputs.label": {
        "en": "Output: one context vector per token (4 decimals)",
        "zh": "输出：每个词元一个上下文向量（4 位小数）",
    },
    "multi_head.outputs.wrapper_column": {"en": "head {head}·{index}", "zh": "头 {head}·{index}"},
    "multi_head.outputs.fused_column": {"en": "out {index}", "zh": "输出 {index}"},
    "multi_head.difference.header": {
        "en": "Wrapper or fused: what is the difference?",
        "zh": "包装类与融合类：有什么区别？",
    },
    "multi_head.difference.text": {
        "en": "- **Wrapper:** the heads are computed one after another (a Python loop over "
        "CausalAttention modules), each with its own three projection matrices; the output "
        "has num_heads · d_out = {wrapper_width:feature|features}.\n"
        "- **Fused:** one matrix product computes the queries (keys, values) of all heads; "
        "`view` and `transpose` split them into heads, which are computed together by one "
        "batched matrix product; `out_proj` then mixes the heads. The output has d_out = "
        "{d_out:feature|features}, however many heads there are.\n"
        "- The two give different numbers for the same seed: their weights are created differently "
        "(the fused class draws one W_query for all heads, plus out_proj). They are two "
        "implementations of the same idea; the fused one is what GPT-style models use, "
        "because one large matrix product is faster than many small ones.",
        "zh": "- **包装类：** 各个头依次计算（对 CausalAttention 模块做 Python 循环），每个头都有自己的"
        "三个投影矩阵；输出有 num_heads · d_out = {wrapper_width} 个特征。\n"
        "- **融合类：** 一次矩阵乘法算出所有头的查询（键、值）；`view` 和 `transpose` 把它们拆成多个头，"
        "再由一次批量矩阵乘法同时计算；然后 `out_proj` 混合各个头。无论有多少个头，"
        "输出都是 d_out = {d_out} 个特征。\n"
        "- 相同的随机种子下，两者给出的数字不同：它们的权重创建方式不同（融合类为所有头生成一个 W_query，"
        "另外还有 out_proj）。它们是同一思想的两种实现；GPT 类模型使用融合的实现，"
        "因为一次大的矩阵乘法比许多次小的更快。",
    },
    "multi_head.parameters.header": {"en": "Trainable parameters", "zh": "可训练参数"},
    "multi_head.parameters.class": {"en": "class", "zh": "类"},
    "multi_head.parameters.total": {"en": "total", "zh": "合计"},
    "multi_head.parameters.text": {
        "en": "Summed from the modules built with these settings (d_in = {d_in}, d_out = "
        "{d_out}, {heads:head|heads}): MultiHeadAttentionWrapper has {wrapper} trainable parameters "
        "({heads:head|heads} × 3 matrices of {d_in} × {d_out}{wrapper_bias}), MultiHeadAttention "
        "has {fused} (3 matrices of {d_in} × {d_out}{fused_bias}, split into heads, plus "
        "out_proj: {d_out} × {d_out} and its bias, {out_proj}).",
        "zh": "由按当前设置（d_in = {d_in}，d_out = {d_out}，{heads} 个头）构建的模块求和得到："
        "MultiHeadAttentionWrapper 有 {wrapper} 个可训练参数（{heads} 个头 × 3 个 {d_in} × {d_out} "
        "的矩阵{wrapper_bias}），MultiHeadAttention 有 {fused} 个（3 个 {d_in} × {d_out} 的矩阵"
        "{fused_bias}，拆分到各个头，另加 out_proj：{d_out} × {d_out} 及其偏置，共 {out_proj} 个）。",
    },
    "multi_head.parameters.bias": {"en": " and their biases", "zh": "及其偏置"},
    "multi_head.parameters.no_fused": {
        "en": "MultiHeadAttention cannot be built with these settings (d_out = {d_out} does not "
        "split into {heads:head|heads}); the wrapper has {wrapper} trainable parameters.",
        "zh": "在这些设置下无法构建 MultiHeadAttention（d_out = {d_out} 不能平均分给 {heads} 个头）；"
        "包装类有 {wrapper} 个可训练参数。",
    },
}
