"""Messages of the page "The chapter's path" (sections 3.3 to 3.5 of the book)."""

MESSAGES = {
    "page.chapter_path.title": {"en": "The chapter's path", "zh": "本章的路线"},
    "chapter.intro": {
        "en": "The book does not start with `CausalAttention`. It builds it in four steps on the "
        "same six embeddings, and this page follows them in its order: attention without "
        "weights (3.3), trainable weights (3.4: `SelfAttention_v1`, then `SelfAttention_v2`), "
        "and the two changes that make `CausalAttention` (3.5). With the book's embeddings and "
        "seeds the numbers are the ones the book prints: below the inputs, the page says which "
        "sections it has just compared with the printouts. Edit the embeddings and every section "
        "follows.",
        "zh": "书中并不是一开始就写出 `CausalAttention`，而是在同样六个嵌入向量上分四步搭起来。"
        "本页按书的顺序走一遍：不带权重的注意力（3.3）、可训练权重（3.4：先 `SelfAttention_v1`，"
        "再 `SelfAttention_v2`），以及把它变成 `CausalAttention` 的两处修改（3.5）。"
        "使用书中的嵌入向量和种子时，这里的数与书中印出的一致：输入下方会说明本页刚刚与书中输出比较过哪些小节。"
        "编辑嵌入向量，每一节都会随之更新。",
    },
    "chapter.inputs": {"en": "The inputs: one row per token", "zh": "输入：每个词元一行"},
    "chapter.edit_link": {"en": "Edit the embeddings", "zh": "编辑嵌入向量"},
    "chapter.book_inputs": {"en": "These are the book's embeddings.", "zh": "这是书中的嵌入向量。"},
    "chapter.own_inputs": {
        "en": "These embeddings are not the book's, so the numbers below differ from the book's "
        "(the computation is the same).",
        "zh": "这些嵌入向量不是书中的，所以下面的数与书中的不同（计算方法相同）。",
    },
    "chapter.compared": {
        "en": "Compared just now with the book's printouts, to their 4 decimals: {sections} "
        "print the book's numbers.",
        "zh": "刚刚与书中打印的结果比较（精确到 4 位小数）：{sections} 显示的就是书中的数。",
    },
    "chapter.this_run": {
        "en": "Numbers of this run, not the book's printout (other embeddings, seed or d_out): "
        "{sections}.",
        "zh": "本次运行的数，而不是书中打印的结果（嵌入向量、种子或 d_out 不同）：{sections}。",
    },
    "chapter.first_tokens": {
        "en": "Your table has {tokens:token|tokens}; this page follows the book on the first {shown} "
        "(the step page takes them all).",
        "zh": "你的表格有 {tokens} 个词元；本页只用前 {shown} 个按书中的步骤计算（分步页面使用全部词元）。",
    },
    "chapter.s33.title": {
        "en": "3.3 · Attention without trainable weights",
        "zh": "3.3 · 不带可训练权重的注意力",
    },
    "chapter.s33.body": {
        "en": "The simplest attention uses the embeddings themselves. The query is one token, "
        "x⁽{sup}⁾ (“{token}”). Its **score** with each token j is the dot product "
        "x⁽{sup}⁾ · x⁽ʲ⁾: large when the two vectors point the same way. The book first "
        "divides the scores by their sum, then uses **softmax** (why: just below, on numbers). "
        "The **context vector** z⁽{sup}⁾ is the weighted "
        "sum of all the embeddings.",
        "zh": "最简单的注意力直接使用嵌入向量本身。查询是一个词元 x⁽{sup}⁾（“{token}”）。"
        "它与每个词元 j 的**注意力分数**是点积 x⁽{sup}⁾ · x⁽ʲ⁾：两个向量方向越接近，分数越大。"
        "书中先把分数除以它们的和，然后改用 **softmax**（为什么：见下方的数字）。"
        "**上下文向量** z⁽{sup}⁾ 是所有嵌入向量的加权和。",
    },
    "chapter.softmax.title": {
        "en": "Why softmax? Try scores",
        "zh": "为什么用 softmax？试试这些分数",
    },
    "chapter.softmax.intro": {
        "en": "On the book's scores both ways give weights between 0 and 1 that add up to 1. "
        "Dividing by the sum fails on other scores, and a dot product can be negative. Edit the "
        "scores (commas between them) or pick a case (the first: the book's scores with the "
        "smallest made negative); the last two rows make every score ten times larger.",
        "zh": "在书中的分数上，两种方法得到的权重都在 0 和 1 之间、总和为 1。但在别的分数上，"
        "除以总和会失败，而点积可能是负数。编辑这些分数（用逗号分隔）或选一个例子（第一个：书中的分数，其中最小的改为负数）；"
        "最后两行把每个分数放大十倍。",
    },
    "chapter.softmax.case.negative": {"en": "A negative score", "zh": "一个负分数"},
    "chapter.softmax.case.near_zero": {"en": "A sum near 0", "zh": "总和接近 0"},
    "chapter.softmax.case.book": {"en": "The book's scores", "zh": "书中的分数"},
    "chapter.softmax.input": {"en": "Scores to turn into weights", "zh": "要变成权重的分数"},
    "chapter.softmax.empty": {
        "en": "Scores: type at least one number (commas between them). The last valid scores "
        "stay below.",
        "zh": "分数：请至少输入一个数（用逗号分隔）。下面保留上一组有效的分数。",
    },
    "chapter.softmax.bad": {
        "en": "Scores: item {number}, “{value}”, is not a number. The last valid scores stay "
        "below.",
        "zh": "分数：第 {number} 项“{value}”不是数。下面保留上一组有效的分数。",
    },
    "chapter.softmax.row.scores": {"en": "score", "zh": "分数"},
    "chapter.softmax.row.by_sum_extreme": {
        "en": "{factor} × score / sum",
        "zh": "{factor} × 分数 / 总和",
    },
    "chapter.softmax.row.softmax_extreme": {
        "en": "softmax({factor} × score)",
        "zh": "softmax({factor} × 分数)",
    },
    "chapter.softmax.zero_sum": {
        "en": "**Dividing by the sum fails outright:** the scores add up to {total}, and "
        "dividing by 0 gives ±inf or NaN, no weights at all (so the table leaves its rows out).",
        "zh": "**除以总和直接失败：** 这些分数的和是 {total}，除以 0 得到 ±inf 或 NaN，根本没有权重（所以表格略去了这几行）。",
    },
    "chapter.softmax.negative": {
        "en": "**Dividing by the sum gives a negative weight** to {names}: the scores add up "
        "to {total}, so the weights are {weights}. A negative weight would subtract that "
        "token's vector from the context vector.",
        "zh": "**除以总和会给 {names} 一个负权重：** 这些分数的和是 {total}，所以权重是 {weights}。"
        "负权重会把这个词元的向量从上下文向量中减掉。",
    },
    "chapter.softmax.blows_up": {
        "en": "**A weight beyond 1:** the sum, {total}, is small next to the scores, so "
        "dividing by it blows a weight up to {largest} in size. A weighted average never "
        "weighs a token more than 1.",
        "zh": "**权重超过 1：** 总和 {total} 相对于分数很小，除以它会把一个权重放大到 {largest}。"
        "加权平均绝不会给一个词元超过 1 的权重。",
    },
    "chapter.softmax.both_work": {
        "en": "Here every score is at least 0 (their sum is {total}), so dividing by the sum "
        "also gives weights between 0 and 1 that add up to 1: both ways work on these scores.",
        "zh": "这里每个分数都不小于 0（总和为 {total}），所以除以总和也得到 0 到 1 之间、总和为 1 "
        "的权重：在这些分数上两种方法都可行。",
    },
    "chapter.softmax.softmax_ok": {
        "en": "**Softmax** takes e^score first, which is above 0 for every score: its weights "
        "run from {low} to {high} and add up to 1, whatever the scores.",
        "zh": "**softmax** 先取 e^分数，它对任何分数都大于 0：它的权重从 {low} 到 {high}，"
        "总和为 1，无论分数是什么。",
    },
    "chapter.softmax.extreme": {
        "en": "**Extreme scores** ({factor:time|times} larger): dividing by the sum does not change "
        "at all (the factor cancels; largest change {change}), while softmax sharpens: "
        "“{token}”, the largest score, goes from {before} to {after}. Softmax lets larger "
        "scores mean more attention, which is also why 3.4 scales the scores by 1/√d_k before "
        "softmax: so that they do not grow too extreme.",
        "zh": "**极端的分数**（放大 {factor} 倍）：除以总和的结果完全不变（倍数被约掉；最大变化 "
        "{change}），而 softmax 变得更尖锐：分数最大的“{token}”从 {before} 变为 {after}。"
        "softmax 让更大的分数意味着更多的注意力，这也是 3.4 在 softmax 之前把分数乘以 1/√d_k 的原因："
        "不让它们变得太极端。",
    },
    "chapter.softmax.overflow": {
        "en": "Written naively, e^s / Σ e^s overflows float32 on these {factor}× scores "
        "(e^s is inf past s ≈ 88.7) and gives NaN; `torch.softmax` subtracts the largest score "
        "first, so its row above is still a number everywhere.",
        "zh": "如果直接写成 e^s / Σ e^s，这些 {factor} 倍的分数会让 float32 溢出（s 超过约 88.7 时 "
        "e^s 为 inf），得到 NaN；`torch.softmax` 先减去最大的分数，所以上面它的那一行仍然处处是数。",
    },
    "chapter.row.scores": {"en": "score x⁽{sup}⁾·x⁽ʲ⁾", "zh": "分数 x⁽{sup}⁾·x⁽ʲ⁾"},
    "chapter.row.by_sum": {"en": "score / sum", "zh": "分数 / 总和"},
    "chapter.row.softmax": {"en": "softmax(score)", "zh": "softmax(分数)"},
    "chapter.query_context": {
        "en": "Context vector z⁽{sup}⁾ = Σⱼ a₍{sub}ⱼ₎ x⁽ʲ⁾",
        "zh": "上下文向量 z⁽{sup}⁾ = Σⱼ a₍{sub}ⱼ₎ x⁽ʲ⁾",
    },
    "chapter.s33.all": {
        "en": "**Every token at once** (3.3.2): the scores of all pairs are one matrix product, "
        "`inputs @ inputs.T`; softmax runs along each row, and the context vectors are "
        "`attn_weights @ inputs`. Row {number} is the query worked out on its own just before.",
        "zh": "**一次计算所有词元**（3.3.2）：所有词元对的分数是一次矩阵乘法 `inputs @ inputs.T`；"
        "softmax 对每一行进行，上下文向量是 `attn_weights @ inputs`。第 {number} 行就是前面单独算过的那个查询。",
    },
    "chapter.attn_scores": {"en": "attn_scores", "zh": "attn_scores（注意力分数）"},
    "chapter.attn_weights": {"en": "attn_weights", "zh": "attn_weights（注意力权重）"},
    "chapter.all_context": {"en": "all_context_vecs", "zh": "all_context_vecs（全部上下文向量）"},
    "chapter.s341.title": {
        "en": "3.4.1 · Trainable weights: SelfAttention_v1",
        "zh": "3.4.1 · 可训练权重：SelfAttention_v1",
    },
    "chapter.s341.body": {
        "en": "Now three matrices that training can change project each embedding to a **query**, "
        "a **key** and a **value**: q = x W_query, k = x W_key, v = x W_value. `SelfAttention_v1` "
        "draws them with `torch.rand` (uniform in [0, 1)) right after `torch.manual_seed({seed})`. "
        "The scores are queries times keys, divided by √d_k = √{d_k} before softmax, and the "
        "context vectors are weighted sums of the values: {d_out:number|numbers} per token.",
        "zh": "现在用三个可以训练的矩阵把每个嵌入向量投影成**查询**、**键**和**值**："
        "q = x W_query，k = x W_key，v = x W_value。`SelfAttention_v1` 在 `torch.manual_seed({seed})` "
        "之后用 `torch.rand`（[0, 1) 上的均匀分布）生成它们。分数是查询乘以键，在 softmax 之前除以 "
        "√d_k = √{d_k}；上下文向量是值向量的加权和：每个词元 {d_out} 个数。",
    },
    "chapter.v1_seed_note": {
        "en": "The seed is the sidebar's seed ({seed}); the book uses 123.",
        "zh": "种子是侧边栏的种子（{seed}）；书中用的是 123。",
    },
    "chapter.one_query": {
        "en": "The query “{token}” step by step: `query_{number}` = x⁽{sup}⁾ `W_query` = "
        "[{query}]; its score with its own key, `attn_score_{number}{number}` = {self_score}.",
        "zh": "逐步计算查询“{token}”：`query_{number}` = x⁽{sup}⁾ `W_query` = [{query}]；"
        "它与自己的键的分数 `attn_score_{number}{number}` = {self_score}。",
    },
    "chapter.row.scores_qk": {"en": "attn_scores_{number}", "zh": "分数 attn_scores_{number}"},
    "chapter.row.weights_qk": {"en": "attn_weights_{number}", "zh": "权重 attn_weights_{number}"},
    "chapter.context_of": {
        "en": "{name}(inputs): the context vectors (row {number} is context_vec_{number})",
        "zh": "{name}(inputs)：上下文向量（第 {number} 行即 context_vec_{number}）",
    },
    "chapter.s342.title": {
        "en": "3.4.2 · nn.Linear: SelfAttention_v2",
        "zh": "3.4.2 · nn.Linear：SelfAttention_v2",
    },
    "chapter.s342.body": {
        "en": "`SelfAttention_v2` computes the same thing with three `nn.Linear(d_in, d_out, "
        "bias=False)` layers. They draw their weights with a better initialisation than "
        "`torch.rand`, so training is more stable. `nn.Linear` stores its weight transposed, "
        "(d_out, d_in); the tables show `weight.T`, the (d_in, d_out) matrix that multiplies x. "
        "The book seeds this one with 789, so its numbers differ from v1's.",
        "zh": "`SelfAttention_v2` 用三个 `nn.Linear(d_in, d_out, bias=False)` 层做同样的计算。"
        "它们的权重初始化方式比 `torch.rand` 更好，训练更稳定。`nn.Linear` 以转置形式 "
        "(d_out, d_in) 存储权重；表中显示的是 `weight.T`，即与 x 相乘的 (d_in, d_out) 矩阵。"
        "书中这里用种子 789，所以数值与 v1 不同。",
    },
    "chapter.v2_seed_short": {"en": "v2's manual_seed", "zh": "v2 的 manual_seed"},
    "chapter.v2_seed": {
        "en": "torch.manual_seed before SelfAttention_v2",
        "zh": "SelfAttention_v2 之前的 torch.manual_seed",
    },
    "chapter.v2_seed_help": {
        "en": "The book uses 789 here. The step page's CausalAttention uses the sidebar's seed.",
        "zh": "书中这里用 789。分步页面中的 CausalAttention 使用侧边栏的种子。",
    },
    "chapter.s35.title": {
        "en": "3.5 · Two changes make CausalAttention",
        "zh": "3.5 · 两处修改得到 CausalAttention",
    },
    "chapter.s35.body": {
        "en": "A language model writes one token after another, so a token may only look at "
        "itself and the tokens before it. The book first hides the future in the softmax "
        "weights of `SelfAttention_v2` (seed {seed}): `torch.tril` keeps the weights on and "
        "below the diagonal and zeroes the rest (each row now sums to less than 1), then each row "
        "is divided by its new sum so that it adds up to 1 again: the two tables that follow.",
        "zh": "语言模型一个词元接一个词元地生成，所以一个词元只能看到它自己和它之前的词元。"
        "书中先在 `SelfAttention_v2`（种子 {seed}）的 softmax 权重中遮住未来：`torch.tril` 保留对角线及其"
        "以下的权重，把其余的置零（每行之和小于 1），然后每一行除以新的行和，使它重新等于 1：见接下来的两张表。",
    },
    "chapter.s35.neg_inf": {
        "en": "**Then the book's more efficient way:** fill the scores above the diagonal with "
        "−∞ before softmax. Since e^−∞ = 0, their weights are exactly 0 and every row sums to 1 "
        "at once: the same weights as the first way (largest difference here {difference}, "
        "float rounding).",
        "zh": "**然后是书中更高效的方法：** 在 softmax 之前把对角线以上的分数填成 −∞。由于 e^−∞ = 0，"
        "它们的权重恰好为 0，每一行的和直接就是 1：与第一种方法的权重相同（这里的最大差值为 "
        "{difference}，浮点舍入）。",
    },
    "chapter.masked_simple": {
        "en": "tril × attn_weights (SelfAttention_v2, seed {seed})",
        "zh": "tril × attn_weights（SelfAttention_v2，种子 {seed}）",
    },
    "chapter.masked_simple_norm": {"en": "divided by each row's sum", "zh": "除以每行之和"},
    "chapter.masked_weights": {
        "en": "−∞, then softmax (SelfAttention_v2, seed {seed})",
        "zh": "先填 −∞，再 softmax（SelfAttention_v2，种子 {seed}）",
    },
    "chapter.diff_intro": {
        "en": "Then the class itself changes. This is the difference between the two classes' "
        "code as this app runs them (`-` removed, `+` added):",
        "zh": "然后修改类本身。这是本应用所运行的两个类的代码差异（`-` 删除，`+` 新增）：",
    },
    "chapter.why_mask": {
        "en": "**The mask, made once and kept with the module.** `register_buffer` stores the "
        "upper-triangle matrix in the module: it is not trained and gets no gradient, but it is "
        "saved in the `state_dict` and moves with the model to the GPU. `masked_fill_` then sets "
        "the future's scores to −∞ in every forward pass.",
        "zh": "**掩码只创建一次，并与模块保存在一起。** `register_buffer` 把上三角矩阵存进模块："
        "它不参与训练、没有梯度，但会随 `state_dict` 一起保存，也会随模型一起移到 GPU。"
        "之后每次前向传播，`masked_fill_` 都把未来位置的分数设为 −∞。",
    },
    "chapter.why_dropout": {
        "en": "**Dropout on the weights.** In training, `nn.Dropout(p)` sets each attention "
        "weight to 0 with probability p and multiplies the kept ones by 1/(1−p), so the model "
        "cannot rely on a few exact weights. In evaluation it does nothing.",
        "zh": "**对权重做 dropout。** 训练时，`nn.Dropout(p)` 以概率 p 把每个注意力权重置为 0，"
        "并把保留下来的权重乘以 1/(1−p)，这样模型不能依赖少数几个精确的权重。评估时它什么也不做。",
    },
    "chapter.why_batch": {
        "en": "The third change is only a shape: `CausalAttention` takes a batch `(b, T, d_in)`, "
        "so it transposes `keys.transpose(1, 2)` instead of `keys.T`.",
        "zh": "第三处修改只是形状：`CausalAttention` 接收一个批次 `(b, T, d_in)`，"
        "所以用 `keys.transpose(1, 2)` 代替 `keys.T`。",
    },
    "chapter.next": {
        "en": "**Next:** the ten steps of one `CausalAttention` forward pass, with the sidebar's "
        "seed, dropout and embeddings; then several heads.",
        "zh": "**下一步：** 用侧边栏的种子、dropout 和嵌入向量，看 `CausalAttention` 一次前向传播的"
        "十个步骤；然后是多个头。",
    },
    "chapter.to_step": {"en": "CausalAttention, step by step", "zh": "CausalAttention，一步一步"},
    "chapter.to_multi_head": {"en": "Multi-head attention (3.6)", "zh": "多头注意力（3.6）"},
    "chapter.s352.title": {
        "en": "3.5.2 Dropout: the book's demo",
        "zh": "3.5.2 Dropout：书中的示例",
    },
    "chapter.s352.body": {
        "en": "Before `CausalAttention` uses it, the book tries `nn.Dropout(0.5)` twice, each time "
        "right after `torch.manual_seed(123)`: on a 6 × 6 matrix of ones, then on masked "
        "attention weights. Each entry is kept with probability 1 − p and then multiplied by "
        "1/(1 − p) = 2, or dropped to 0. Both are drawn here, now, on these embeddings.",
        "zh": "在 `CausalAttention` 使用 dropout 之前，书中先试了两次 `nn.Dropout(0.5)`，每次都紧跟在 "
        "`torch.manual_seed(123)` 之后：先作用于 6 × 6 的全 1 矩阵，再作用于掩码后的注意力权重。"
        "每个元素以 1 − p 的概率被保留并乘以 1/(1 − p) = 2，否则变为 0。两者都在这里、"
        "用这些嵌入向量现场计算。",
    },
    "chapter.s352.ones": {
        "en": "dropout(torch.ones(6, 6))",
        "zh": "全 1 矩阵的 dropout：dropout(torch.ones(6, 6))",
    },
    "chapter.s352.weights": {
        "en": "dropout(attn_weights)",
        "zh": "权重的 dropout：dropout(attn_weights)",
    },
    "chapter.s352.vanished": {
        "en": "Every weight of “{token}” (row {number}) was dropped: its context vector is 0 in "
        "this pass. Row {number} sees {visible:key|keys}, each dropped with probability p = {p}, so "
        "the whole row goes with probability {p}{visible:exponent} = {chance}.",
        "zh": "“{token}”（第 {number} 行）的每个权重都被丢弃了：这一轮它的上下文向量为 0。"
        "第 {number} 行能看到 {visible} 个键，每个以 p = {p} 的概率被丢弃，"
        "所以整行被丢弃的概率是 {p}{visible:exponent} = {chance}。",
    },
    "chapter.s352.book": {
        "en": "These are the book's two printouts, compared now: largest differences {ones:difference} "
        "(ones) and {weights:difference} (weights), within the printed 4 decimals.",
        "zh": "这就是书中的两个输出，现场比较：最大差值分别为 {ones:difference}（全 1 矩阵）和 "
        "{weights:difference}（权重），在打印的 4 位小数之内。",
    },
    "chapter.s352.not_book": {
        "en": "This machine draws other masks than the book's printouts: largest differences "
        "{ones:difference} (ones) and {weights:difference} (weights). The book warns that dropout may differ "
        "between operating systems.",
        "zh": "这台机器抽到的掩码与书中打印的不同：最大差值分别为 {ones:difference}（全 1 矩阵）和 "
        "{weights:difference}（权重）。书中提醒，不同操作系统上 dropout 的结果可能不同。",
    },
}
