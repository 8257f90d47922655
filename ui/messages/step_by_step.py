"""Messages of the page "Attention, step by step" (``pages/step_by_step.py``).

A step's English title is the registry's (``attention.steps``), which the notebook view writes too.
"""

from attention.steps import step_named

MESSAGES = {
    # top of the page
    "step.intro": {
        "en": "Follow one forward pass of the book's `CausalAttention`, from the embeddings to the "
        "context vectors. Every number on this page is computed by PyTorch from the table below "
        "and the settings in the sidebar: change either, and every step updates.",
        "zh": "跟随书中 `CausalAttention` 的一次前向传播，从嵌入向量一直走到上下文向量。本页的每个数字"
        "都由 PyTorch 根据下面的表格和侧边栏中的设置算出：改动任何一项，每一步都会随之更新。",
    },
    "step.settings": {
        "en": "**Now:** seed {seed} · dropout p = {p} · {mode} ({dropout_state}) · d_out = {d_out} "
        "· {tokens:token|tokens} with d_in = {d_in} · one head, {batch}",
        "zh": "**当前：** 随机种子 {seed} · dropout p = {p} · {mode}（{dropout_state}）· "
        "d_out = {d_out} · {tokens} 个词元，d_in = {d_in} · 单头，{batch}",
    },
    "step.mode.train": {"en": "training mode", "zh": "训练模式"},
    "step.mode.eval": {"en": "eval mode", "zh": "评估模式"},
    "step.dropout_state.on": {"en": "dropout acts", "zh": "dropout 生效"},
    "step.dropout_state.off": {"en": "dropout does nothing", "zh": "dropout 不起作用"},
    "step.heads_note": {
        "en": "This page follows one head (`CausalAttention`); the number of heads ({heads}) is "
        "used on the Multi-head page.",
        "zh": "本页跟随单个头（`CausalAttention`）；头数（{heads}）用于多头注意力页面。",
    },
    "step.pipeline": {
        "en": "The whole forward pass in one line. Below: the input beside the output, then the "
        "ten steps in between, one at a time: pick one in the row of steps.",
        "zh": "一行写出整个前向传播。下面先并排显示输入和输出，再逐一显示中间的十个步骤：在步骤栏中选择一步。",
    },
    # input and output
    "step.input.title": {"en": "Input: the embedding table X", "zh": "输入：嵌入向量表 X"},
    "step.input.caption": {
        "en": "Edit a value (click or tap a cell twice, type, press Enter) and watch every step change. "
        "For other words, type a sentence into the sentence box in the sidebar.",
        "zh": "修改一个数值（在单元格上点击或轻点两次，输入，按回车），观察每一步如何变化。"
        "想换成别的词，请在侧边栏的句子框中输入一个句子。",
    },
    "step.output.title": {"en": "Output: the context vectors", "zh": "输出：上下文向量"},
    "step.output.book": {
        "en": "✓ These are the context vectors the book prints (section 3.5.3), compared now: "
        "largest difference {difference:difference}, within its 4 decimals.",
        "zh": "✓ 这就是书中打印的上下文向量（第 3.5.3 节），现场比较：最大差值 {difference:difference}，"
        "在书中的 4 位小数之内。",
    },
    "step.output.not_book": {
        "en": "These settings are the book's, but the context vectors differ from its printout "
        "by up to {difference:difference} on this machine.",
        "zh": "这些设置与书中相同，但在这台机器上上下文向量与书中打印的相差最多 {difference:difference}。",
    },
    "step.output.caption": {
        "en": "`context_vec`, shape {shape}, batch item 0: one {d_out}-dimensional vector per "
        "token, rounded to 4 decimals. Step 10 explains where they come from.",
        "zh": "`context_vec`，形状 {shape}，显示第 0 个批次项：每个词元一个 {d_out} 维向量，保留 4 位小数。"
        "第 10 步解释它们从何而来。",
    },
    "step.output.truncated": {
        "en": "The first {shown} of {tokens:row|rows} are listed; step 10 has all of them.",
        "zh": "只列出 {tokens} 行中的前 {shown} 行；第 10 步包含全部各行。",
    },
    "step.all_toggle": {
        "en": "Show all ten steps on one page",
        "zh": "在一个页面中显示全部十个步骤",
    },
    "step.all_toggle_help": {
        "en": "Off: one step at a time. On: every step one below the other, for scrolling through, "
        "printing or presenting.",
        "zh": "关闭：一次显示一步。打开：所有步骤上下排列，便于滚动浏览、打印或演示。",
    },
    # a step's heading and tab label: its number comes from its place in attention.steps.STEPS
    "step.heading": {"en": "Step {number} · {title}", "zh": "第 {number} 步 · {title}"},
    "step.tab_label": {"en": "{number} · {tab}", "zh": "{number} · {tab}"},
    "step.embeddings.tab": {"en": "Embeddings", "zh": "嵌入向量"},
    "step.embeddings.title": {"en": step_named("embeddings").title, "zh": "嵌入向量表 X"},
    "step.embeddings.body": {
        "en": "Attention never sees words, only numbers: each row is one token's embedding vector, "
        "here {tokens:token|tokens} with d_in = {d_in:value|values} each. Edit the values in the Input table "
        "at the top of the page, or type a new sentence into the sentence box in the sidebar.",
        "zh": "注意力从来看不到词，只看到数字：每一行是一个词元的嵌入向量，这里共有 {tokens} 个词元，"
        "每个有 d_in = {d_in} 个数值。可以在页面顶部的输入表格中修改数值，"
        "或在侧边栏的句子框中输入新句子。",
    },
    "step.weights.tab": {"en": "Weights", "zh": "权重矩阵"},
    "step.weights.title": {
        "en": step_named("weights").title,
        "zh": "权重矩阵 W_query、W_key、W_value",
    },
    "step.weights.body": {
        "en": "Three trainable matrices turn every embedding into a query, a key and a value. "
        "They start out random: `torch.manual_seed({seed})` before the layer is built fixes them, "
        "so the same seed always gives the same weights (change the seed in the sidebar to draw "
        "others). Rows are the input features x1…, columns the d_out = {d_out} output features.",
        "zh": "三个可训练的矩阵把每个嵌入向量变成查询、键和值。它们的初始值是随机的："
        "构建该层之前调用 `torch.manual_seed({seed})` 就固定了它们，所以同一个种子总是得到同样的权重"
        "（在侧边栏更换种子即可抽取别的权重）。行是输入特征 x1…，列是 d_out = {d_out} 个输出特征。",
    },
    "step.weights.linear": {
        "en": "`nn.Linear(d_in, d_out)` stores its weight as (d_out, d_in) and computes x Wᵀ; it is "
        "shown here transposed, (d_in, d_out), so that Q = X W_query as in the book's "
        "`SelfAttention_v1`.",
        "zh": "`nn.Linear(d_in, d_out)` 把权重存成 (d_out, d_in) 并计算 x Wᵀ；这里显示的是转置后的 "
        "(d_in, d_out)，这样 Q = X W_query，与书中的 `SelfAttention_v1` 一致。",
    },
    "step.weights.bias_on": {
        "en": "qkv_bias is on: each projection also adds a trainable bias vector, one value per "
        "output feature.",
        "zh": "qkv_bias 已打开：每个投影还会加上一个可训练的偏置向量，每个输出特征一个数值。",
    },
    "step.weights.bias_off": {
        "en": "qkv_bias is off, as in the book: the projections have no bias.",
        "zh": "qkv_bias 已关闭，与书中一致：投影没有偏置。",
    },
    "step.qkv.tab": {"en": "Q, K, V", "zh": "Q、K、V"},
    "step.qkv.title": {"en": step_named("qkv").title, "zh": "查询、键和值"},
    "step.qkv.body": {
        "en": "Every token plays three roles. Its query says what it is looking for, its key what "
        "it offers to the others, its value what it passes on when it is attended to. Each is the "
        "embedding times a weight matrix: rows are tokens, columns the d_out = {d_out:feature|features}.",
        "zh": "每个词元扮演三个角色：查询表示它在寻找什么，键表示它向其他词元提供什么，"
        "值表示它被关注时传递出去的内容。三者都是嵌入向量乘以一个权重矩阵：行是词元，"
        "列是 d_out = {d_out} 个特征。",
    },
    "step.scores.tab": {"en": "Scores", "zh": "注意力分数"},
    "step.scores.title": {"en": step_named("scores").title, "zh": "原始注意力分数 Q Kᵀ"},
    "step.scores.body": {
        "en": "Cell (i, j) is the dot product of query i with key j: how well token j matches what "
        "token i is looking for. Rows are queries, columns are keys. Notice the upper-right "
        "triangle: here every token can still see the tokens that come after it.",
        "zh": "单元格 (i, j) 是查询 i 与键 j 的点积：词元 j 与词元 i 所寻找的内容有多匹配。"
        "行是查询，列是键。注意右上三角：此时每个词元仍然能看到它后面的词元。",
    },
    "step.mask.tab": {"en": "Mask", "zh": "掩码"},
    "step.mask.title": {"en": step_named("mask").title, "zh": "因果掩码"},
    "step.mask.body": {
        "en": "A language model predicts the next token, so token i must not look at the tokens "
        "after it. The mask marks those future cells: 1 above the diagonal (hidden, grey), 0 on "
        "and below it (visible).",
        "zh": "语言模型要预测下一个词元，所以词元 i 不能看到它后面的词元。掩码标出这些“未来”的单元格："
        "对角线以上为 1（隐藏，灰色），对角线及以下为 0（可见）。",
    },
    "step.mask.buffer": {
        "en": "The mask is built once, in `__init__`, and stored with `register_buffer`. A buffer "
        "is not a parameter: it has no gradient and is never trained, but it is saved in the "
        "model's `state_dict` and moves with the model between devices (`model.to('cuda')`). "
        "`forward` crops it to the sentence: `self.mask.bool()[:num_tokens, :num_tokens]`. "
        "Why not a plain attribute `self.mask = …`? It would be left out of `state_dict` (so "
        "not saved) and stay on the CPU when the model moves to a GPU. Why not an `nn.Parameter`? "
        "The optimizer would change it, and the mask must stay the same.",
        "zh": "掩码只在 `__init__` 中构建一次，并用 `register_buffer` 保存。缓冲区不是参数："
        "它没有梯度，也从不参与训练，但会随模型一起保存在 `state_dict` 中，并随模型在设备之间移动"
        "（`model.to('cuda')`）。`forward` 把它裁剪到句子的长度："
        "`self.mask.bool()[:num_tokens, :num_tokens]`。为什么不直接写成属性 `self.mask = …`？"
        "那样它不会进入 `state_dict`（不会被保存），模型移到 GPU 时它也会留在 CPU 上。"
        "为什么不用 `nn.Parameter`？那样优化器会改变它，而掩码必须保持不变。",
    },
    "step.mask.legend": {
        "en": "1 = hidden (a future token) · 0 = visible",
        "zh": "1 = 隐藏（未来的词元）· 0 = 可见",
    },
    "step.masked.tab": {"en": "Masked", "zh": "掩码后"},
    "step.masked.title": {"en": step_named("masked").title, "zh": "掩码后的注意力分数"},
    "step.masked.body": {
        "en": "`masked_fill_` writes −∞ into every hidden cell (grey); the visible scores do not "
        "change. Why −∞ and not 0? Because e^(−∞) = 0: after softmax these cells get exactly zero "
        "weight, and the visible weights of each row still sum to 1.",
        "zh": "`masked_fill_` 把每个隐藏单元格（灰色）写成 −∞；可见的分数保持不变。为什么是 −∞ 而不是 0？"
        "因为 e^(−∞) = 0：softmax 之后这些单元格的权重恰好为 0，而每一行可见的权重之和仍然是 1。",
    },
    "step.scaled.tab": {"en": "Scaled", "zh": "缩放"},
    "step.scaled.title": {"en": step_named("scaled").title, "zh": "除以 √d_k 进行缩放"},
    "step.scaled.body": {
        "en": "The scores are divided by √d_k, where d_k = `keys.shape[-1]` is the width of a "
        "key: here d_k = {d_k}, so √d_k = {sqrt_dk}. Dot products of wider vectors grow larger; "
        "without this scaling, softmax would put almost all the weight on one token and the "
        "gradients would become tiny. The hidden cells stay −∞.",
        "zh": "注意力分数除以 √d_k，其中 d_k = `keys.shape[-1]` 是键向量的维度：这里 d_k = {d_k}，"
        "所以 √d_k = {sqrt_dk}。向量越宽，点积越大；如果不缩放，softmax 会把几乎全部权重放在一个词元上，"
        "梯度会变得极小。隐藏的单元格仍然是 −∞。",
    },
    "step.softmax.tab": {"en": "Softmax", "zh": "Softmax"},
    "step.softmax.title": {"en": step_named("softmax").title, "zh": "Softmax：注意力权重"},
    "step.softmax.body": {
        "en": "Softmax turns each row of scaled scores into weights between 0 and 1 that sum to 1: "
        "row i says how much token i attends to each token. The masked cells become exactly 0 "
        "(grey), so token i only mixes tokens 1 … i; the first token can only attend to itself, "
        "with weight 1.",
        "zh": "Softmax 把缩放后分数的每一行变成 0 到 1 之间、和为 1 的权重（归一化）："
        "第 i 行表示词元 i 对每个词元的关注程度。被掩码的单元格恰好变成 0（灰色），"
        "所以词元 i 只混合词元 1 … i；第一个词元只能关注它自己，权重为 1。",
    },
    "step.softmax.sums": {
        "en": "Row sums, `attn_weights.sum(-1)`: {sums}",
        "zh": "各行之和，`attn_weights.sum(-1)`：{sums}",
    },
    "step.softmax.sums_range": {
        "en": "Row sums, `attn_weights.sum(-1)`, lie between {low} and {high}.",
        "zh": "各行之和 `attn_weights.sum(-1)` 介于 {low} 与 {high} 之间。",
    },
    "step.dropout.tab": {"en": "Dropout", "zh": "Dropout"},
    "step.dropout.title": {"en": step_named("dropout").title, "zh": "对注意力权重做 dropout"},
    "step.dropout.body": {
        "en": "In training, `nn.Dropout(p)` sets each weight to 0 with probability p and multiplies "
        "the kept ones by 1/(1 − p), so that every weight keeps its expected value. The model "
        "then cannot rely on any single connection. Which weights are dropped is drawn from the "
        "random generator, so the seed fixes it too.",
        "zh": "训练时，`nn.Dropout(p)` 以概率 p 把每个权重置为 0，并把保留下来的权重乘以 1/(1 − p)，"
        "这样每个权重的期望值保持不变。模型因此不能依赖任何单一的连接。哪些权重被丢弃由随机数生成器决定，"
        "所以种子也固定了它。",
    },
    "step.dropout.active": {
        "en": "p = {p}: kept weights × {scale} (= 1/(1 − {p})). Of the {visible} visible weights, "
        "{kept} were kept and {dropped} dropped (pink, set to 0). Cells above the diagonal are "
        "already 0, so dropping them changes nothing.",
        "zh": "p = {p}：保留的权重 × {scale}（= 1/(1 − {p})）。在 {visible} 个可见权重中，"
        "保留了 {kept} 个，丢弃了 {dropped} 个（粉色，置为 0）。对角线以上的单元格本来就是 0，"
        "丢弃它们不会改变任何东西。",
    },
    "step.dropout.before_after_kept": {
        "en": "Before and after: “{query}” → “{column}” {before} → **{after}** (kept).",
        "zh": "dropout 前后：“{query}” → “{column}” {before} → **{after}**（保留）。",
    },
    "step.dropout.before_after_dropped": {
        "en": "“{query}” → “{column}” {before} → **{after}** (dropped).",
        "zh": "“{query}” → “{column}” {before} → **{after}**（丢弃）。",
    },
    "step.dropout.row_dropped": {
        "en": "Every weight of “{token}” (row {number}) was dropped in this pass, so its context "
        "vector is exactly 0. Row {number} sees {visible:key|keys}, each dropped with probability "
        "p = {p}, so the whole row goes with probability p{visible:exponent} = {chance}.",
        "zh": "这一轮中“{token}”（第 {number} 行）的每个权重都被丢弃了，所以它的上下文向量恰好为 0。"
        "第 {number} 行能看到 {visible} 个键，每个以 p = {p} 的概率被丢弃，"
        "所以整行被丢弃的概率是 p{visible:exponent} = {chance}。",
    },
    "step.dropout.not_demo": {
        "en": "Not the book's 3.5.2 printout: the book calls `nn.Dropout({p})` right after "
        "`torch.manual_seed({seed})` with no layer built in between (the chapter's path shows "
        "that demo). Here `CausalAttention` first draws W_query, W_key and W_value from the same "
        "seed, so its dropout mask comes later in the random stream: it differs from that bare "
        "draw in {count} of the {visible} visible weights.",
        "zh": "这不是书中第 3.5.2 节打印的结果：书中在 `torch.manual_seed({seed})` 之后直接调用 "
        "`nn.Dropout({p})`，中间没有构建任何层（“本章的路线”页面展示了这个示例）。这里 "
        "`CausalAttention` 先用同一个种子生成 W_query、W_key 和 W_value，所以它的 dropout "
        "掩码取自随机数序列中更靠后的位置：与那次直接抽取的掩码相比，{visible} 个可见权重中有 "
        "{count} 个不同。",
    },
    "step.dropout.rows_dropped_more": {
        "en": "{count:row|rows} lost every weight in this pass; their context vectors are 0.",
        "zh": "这一轮共有 {count} 行丢失了全部权重；它们的上下文向量为 0。",
    },
    "step.dropout.sums": {
        "en": "After dropout the rows no longer sum to 1. Row sums, `dropped_weights.sum(-1)`: "
        "{sums}",
        "zh": "dropout 之后，各行之和不再是 1。各行之和 `dropped_weights.sum(-1)`：{sums}",
    },
    "step.dropout.sums_range": {
        "en": "After dropout the rows no longer sum to 1: row sums, `dropped_weights.sum(-1)`, "
        "lie between {low} and {high}.",
        "zh": "dropout 之后，各行之和不再是 1：`dropped_weights.sum(-1)` 介于 {low} 与 {high} 之间。",
    },
    "step.dropout.inactive_eval": {
        "en": "Dropout does nothing here: the layer is in eval mode (`module.eval()`). As in "
        "PyTorch, dropout acts only in training mode with p > 0, so dropped_weights = "
        "attn_weights and every row still sums to 1. Switch training mode on in the sidebar to "
        "see it act.",
        "zh": "这里 dropout 不起作用：该层处于评估模式（`module.eval()`）。与 PyTorch 一样，"
        "dropout 只在训练模式且 p > 0 时生效，所以 dropped_weights = attn_weights，"
        "每一行之和仍然是 1。在侧边栏打开训练模式即可看到它的作用。",
    },
    "step.dropout.inactive_p0": {
        "en": "Dropout does nothing here: p = 0. As in PyTorch, dropout acts only in training "
        "mode with p > 0, so dropped_weights = attn_weights and every row still sums to 1. Move "
        "the dropout slider in the sidebar to see it act.",
        "zh": "这里 dropout 不起作用：p = 0。与 PyTorch 一样，dropout 只在训练模式且 p > 0 时生效，"
        "所以 dropped_weights = attn_weights，每一行之和仍然是 1。拖动侧边栏中的 dropout 滑块"
        "即可看到它的作用。",
    },
    "step.dropout.keep_title": {
        "en": "Keep-mask: ✓ kept, ✗ dropped, — masked already",
        "zh": "保留掩码：✓ 保留，✗ 丢弃，— 已被因果掩码遮住",
    },
    "step.dropout.before_title": {
        "en": "Weights before dropout (`attn_weights`, step 8)",
        "zh": "dropout 之前的权重（`attn_weights`，第 8 步）",
    },
    "step.dropout.dropped_title": {
        "en": "Weights after dropout (`dropped_weights`)",
        "zh": "dropout 之后的权重（`dropped_weights`）",
    },
    "step.context.tab": {"en": "Context", "zh": "上下文向量"},
    "step.context.title": {"en": step_named("context").title, "zh": "上下文向量"},
    "step.context.body": {
        "en": "Each context vector is a weighted sum of the value vectors: row i of the weights "
        "says how much of each token's value goes into token i's context vector, and token i "
        "mixes only tokens 1 … i. Each token is now represented by a {d_out}-dimensional vector: "
        "the output of the layer.",
        "zh": "每个上下文向量都是值向量的加权和：权重的第 i 行决定每个词元的值有多少进入词元 i 的上下文向量，"
        "而词元 i 只混合词元 1 … i。现在每个词元都由一个 {d_out} 维向量表示：这就是该层的输出。",
    },
    # axis titles, hover names
    "step.axis.token": {"en": "token", "zh": "词元"},
    "step.axis.feature": {"en": "feature", "zh": "特征"},
    "step.axis.input_feature": {"en": "input feature", "zh": "输入特征"},
    "step.axis.output_feature": {"en": "output feature", "zh": "输出特征"},
    "step.axis.query": {"en": "query", "zh": "查询"},
    "step.axis.key": {"en": "key", "zh": "键"},
    "step.value.embedding": {"en": "embedding value", "zh": "嵌入值"},
    "step.value.weight": {"en": "weight", "zh": "权重"},
    "step.value.bias": {"en": "bias", "zh": "偏置"},
    "step.value.queries": {"en": "query value", "zh": "查询分量"},
    "step.value.keys": {"en": "key value", "zh": "键分量"},
    "step.value.values": {"en": "value", "zh": "值分量"},
    "step.value.score": {"en": "score", "zh": "注意力分数"},
    "step.value.scaled": {"en": "scaled score", "zh": "缩放后的分数"},
    "step.value.weights": {"en": "attention weight", "zh": "注意力权重"},
    "step.value.dropped": {"en": "weight after dropout", "zh": "dropout 后的权重"},
    "step.value.context": {"en": "context value", "zh": "上下文向量分量"},
    "step.state.hidden": {"en": "1: hidden (a future token)", "zh": "1：隐藏（未来的词元）"},
    "step.state.visible": {"en": "0: visible", "zh": "0：可见"},
    "step.state.masked": {"en": "masked (a future token)", "zh": "被掩码（未来的词元）"},
    "step.state.kept": {"en": "kept", "zh": "保留"},
    "step.state.dropped": {"en": "dropped", "zh": "丢弃"},
}
