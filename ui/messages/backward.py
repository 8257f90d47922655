"""The backward page (pages/backward.py) and its settings (ui/gradient_state.py)."""

MESSAGES = {
    "backward.intro": {
        "en": "Print the context vectors of the book's CausalAttention (chapter 3, "
        "`print(context_vecs)`) and PyTorch adds `grad_fn=<UnsafeViewBackward0>`: each tensor remembers the operation that made it. "
        "Training uses that memory. A **loss**, one number, is computed from the output, and "
        "`loss.backward()` sends its gradient back through every step, down to W_query, W_key "
        "and W_value. This page shows that backward pass for the current sentence and settings "
        "(one CausalAttention head; the same seed and dropout mask as on the other pages), the "
        "autograd graph PyTorch records, and steps of gradient descent.",
        "zh": "打印书中 CausalAttention 的上下文向量（第 3 章，`print(context_vecs)`）时，"
        "PyTorch 会带上 `grad_fn=<UnsafeViewBackward0>`：每个张量都记得"
        "生成它的运算。训练正是利用这份记忆：先由输出算出一个数——**损失**，"
        "再由 `loss.backward()` 把它的梯度沿每一步传回去，一直传到 W_query、W_key 和 "
        "W_value。本页展示当前句子与设置下的这次反向传播（一个 CausalAttention 头；"
        "随机种子与 dropout 掩码和其他页面相同）、PyTorch 记录的自动求导图，以及梯度下降的几步。",
    },
    # 1. the loss
    "backward.loss.header": {"en": "1. The loss", "zh": "1. 损失"},
    "backward.loss.label": {"en": "Loss", "zh": "损失"},
    "backward.loss.sum": {"en": "Sum of the outputs", "zh": "输出之和"},
    "backward.loss.squared_distance": {
        "en": "Squared distance to a target",
        "zh": "到目标的平方距离",
    },
    "backward.loss.help": {
        "en": "The number the backward pass starts from. The sum of the outputs is the simplest; "
        "the squared distance pulls every context vector toward a target vector you type. "
        "(Training a language model uses the cross-entropy of the next token, which needs a "
        "trained model's output layer.)",
        "zh": "反向传播的起点是这个数。输出之和最简单；平方距离把每个上下文向量拉向你输入的"
        "目标向量。（训练语言模型用的是下一个词元的交叉熵，那需要训练好的模型的输出层。）",
    },
    "backward.loss.value": {"en": "Loss L", "zh": "损失 L"},
    "backward.loss.sum_text": {
        "en": "Every entry of every context vector z adds itself to L, so L grows by exactly 1 "
        "when any one entry grows by 1: **∂L/∂z = 1 everywhere**. A step against this "
        "gradient makes the context entries smaller; this loss has no lowest value and keeps "
        "falling.",
        "zh": "每个上下文向量 z 的每个分量都原样加进 L，所以任一分量增加 1，L 恰好增加 1："
        "**处处 ∂L/∂z = 1**。沿梯度反方向走一步会让上下文分量变小；这个损失没有最小值，"
        "会一直下降。",
    },
    "backward.loss.distance_text": {
        "en": "The average over the {tokens:token|tokens} of the squared distance between each context "
        "vector zₜ and the target y. It is 0 only when every context vector equals y; a learning "
        "step moves them toward y.",
        "zh": "对 {tokens} 个词元取平均：每个上下文向量 zₜ 与目标 y 之间平方距离的均值。"
        "只有每个上下文向量都等于 y 时它才为 0；学习的一步会把它们推向 y。",
    },
    "backward.target.label": {
        "en": "Target context vector y ({d_out:number|numbers})",
        "zh": "目标上下文向量 y（{d_out} 个数）",
    },
    "backward.target.help": {
        "en": "The vector every context vector should move toward: d_out = {d_out:number|numbers} "
        "separated by commas. Empty means the zero vector. Used by the squared distance.",
        "zh": "每个上下文向量要靠近的向量：d_out = {d_out} 个数，用逗号分隔。留空表示零向量。"
        "用于平方距离损失。",
    },
    "backward.target.problem": {
        "en": "The target cannot be used: {detail} The last usable target is used instead: "
        "({used}).",
        "zh": "无法使用该目标：{detail} 已改用上一个可用的目标：（{used}）。",
    },
    "backward.target.not_number": {
        "en": "entry {position} (“{value}”) is not a number.",
        "zh": "第 {position} 项（“{value}”）不是数字。",
    },
    "backward.target.not_finite": {
        "en": "entry {position} (“{value}”) is not a finite number of at most 10⁶ in size.",
        "zh": "第 {position} 项（“{value}”）不是绝对值不超过 10⁶ 的有限数。",
    },
    "backward.target.too_many": {
        "en": "it has {count:number|numbers}; at most {limit}.",
        "zh": "它有 {count} 个数；最多 {limit} 个。",
    },
    "backward.target.too_long": {
        "en": "it has {chars:character|characters}; at most {limit}.",
        "zh": "它有 {chars} 个字符；最多 {limit} 个。",
    },
    "backward.target.width": {
        "en": "it has {count:number|numbers}, but a context vector has d_out = {width}.",
        "zh": "它有 {count} 个数，但上下文向量有 d_out = {width} 个分量。",
    },
    # 2. backward, step by step
    "backward.steps.header": {"en": "2. Backward, step by step", "zh": "2. 反向传播，一步一步"},
    "backward.steps.intro": {
        "en": "The gradient flows against the forward pass: from the context vectors back through "
        "dropout, softmax, the scaling, the mask and the dot products, to Q, K, V and the weight "
        "matrices. Each heatmap shows ∂L/∂(that step) for the sentence, in the shape of the step "
        "itself (rows are tokens or queries, columns features or keys); a white cell is 0. This "
        "is what `loss.backward()` computes; the formulas say how each gradient is made from the "
        "one before.",
        "zh": "梯度逆着前向计算流动：从上下文向量出发，依次穿过 dropout、softmax、缩放、掩码和"
        "点积，到达 Q、K、V 和权重矩阵。每张热力图是这句话的 ∂L/∂(该步)，形状与该步本身"
        "相同（行是词元或查询，列是特征或键）；白色格子为 0。这就是 `loss.backward()` "
        "计算的内容；公式说明每个梯度如何由上一个得到。",
    },
    "backward.axis.weight_j": {"en": "weight of key j", "zh": "键 j 的权重"},
    "backward.axis.score_k": {"en": "score of key k", "zh": "键 k 的分数"},
    "backward.name.context": {"en": "∂L/∂z", "zh": "∂L/∂z"},
    "backward.name.dropped_weights": {"en": "∂L/∂Ã", "zh": "∂L/∂Ã"},
    "backward.name.attn_weights": {"en": "∂L/∂A", "zh": "∂L/∂A"},
    "backward.name.scaled_scores": {"en": "∂L/∂s", "zh": "∂L/∂s"},
    "backward.name.masked_scores": {"en": "∂L/∂ω (masked)", "zh": "∂L/∂ω（掩码后）"},
    "backward.name.attn_scores": {"en": "∂L/∂ω", "zh": "∂L/∂ω"},
    "backward.name.queries": {"en": "∂L/∂Q", "zh": "∂L/∂Q"},
    "backward.name.keys": {"en": "∂L/∂K", "zh": "∂L/∂K"},
    "backward.name.values": {"en": "∂L/∂V", "zh": "∂L/∂V"},
    "backward.name.W_query": {"en": "∂L/∂W_q", "zh": "∂L/∂W_q"},
    "backward.name.W_key": {"en": "∂L/∂W_k", "zh": "∂L/∂W_k"},
    "backward.name.W_value": {"en": "∂L/∂W_v", "zh": "∂L/∂W_v"},
    "backward.name.jacobian": {"en": "∂Aᵢⱼ/∂sᵢₖ", "zh": "∂Aᵢⱼ/∂sᵢₖ"},
    "backward.context.header": {"en": "Context vectors z ← the loss", "zh": "上下文向量 z ← 损失"},
    "backward.context.text_sum": {
        "en": "With the sum as the loss, each of the T × d_out entries has gradient exactly 1.",
        "zh": "以输出之和为损失时，T × d_out 个分量的梯度都恰好是 1。",
    },
    "backward.context.text_squared_distance": {
        "en": "Each context vector gets 2/T times its difference from the target: the gradient "
        "points away from y, so a step against it moves z toward y.",
        "zh": "每个上下文向量的梯度是它与目标之差的 2/T 倍：梯度背离 y，沿反方向走一步就把 z "
        "推向 y。",
    },
    "backward.dropped_weights.header": {
        "en": "Dropped weights Ã ← the context vectors",
        "zh": "dropout 后的权重 Ã ← 上下文向量",
    },
    "backward.dropped_weights.text": {
        "en": "Entry (i, j) is the context gradient of query i dotted with the value vector of "
        "key j. **The upper triangle is not zero here**: a hidden weight is 0, but if it grew, "
        "zᵢ would change. The zeros come at the softmax, two steps down.",
        "zh": "第 (i, j) 项是查询 i 的上下文梯度与键 j 的值向量的点积。**这里的上三角并不为 0**："
        "被遮住的权重是 0，但如果它变大，zᵢ 就会改变。零出现在 softmax 那一步，再往下两步。",
    },
    "backward.attn_weights.header": {
        "en": "Attention weights A ← the dropped weights (dropout)",
        "zh": "注意力权重 A ← dropout 后的权重（dropout）",
    },
    "backward.attn_weights.text_dropout": {
        "en": "Dropout multiplied each weight by its mask: 0 where dropped, 1/(1 − p) = {scale} "
        "where kept (p = {p}). The gradient is multiplied by the same numbers: the **{dropped} "
        "dropped weights get exactly 0** (the largest |value| among them: {largest}), and the "
        "**{kept} kept weights get {scale} × the gradient above** (largest difference from that "
        "ratio: {error}; 1/(1 − p) is stored as a float32 number).",
        "zh": "dropout 把每个权重乘以它的掩码：丢弃处乘 0，保留处乘 1/(1 − p) = {scale}"
        "（p = {p}）。梯度也乘以同样的数：**{dropped} 个被丢弃的权重梯度恰好为 0**"
        "（其中最大的 |值|：{largest}），**{kept} 个保留的权重梯度是上一张图的 {scale} 倍**"
        "（与这个倍数的最大偏差：{error}；1/(1 − p) 以 float32 存储）。",
    },
    "backward.attn_weights.text_no_dropout": {
        "en": "Dropout does nothing here (evaluation mode or p = 0), so this gradient equals the "
        "one above.",
        "zh": "这里 dropout 不起作用（评估模式或 p = 0），所以这个梯度与上一张图相同。",
    },
    "backward.scaled_scores.header": {
        "en": "Scaled scores s ← the attention weights (softmax)",
        "zh": "缩放后的分数 s ← 注意力权重（softmax）",
    },
    "backward.scaled_scores.text": {
        "en": "Softmax ties a row together: raising one score raises its weight and lowers all "
        "the others, ∂Aᵢⱼ/∂sᵢₖ = Aᵢⱼ(δⱼₖ − Aᵢₖ). A masked score has weight Aᵢⱼ = 0, so its "
        "gradient is 0 × (…) = 0: **the {hidden} masked cells are exactly 0** (the largest "
        "|value| there: {largest}). The gradient of the hidden weights above stops here.",
        "zh": "softmax 把一行绑在一起：提高一个分数会提高它的权重、降低其他所有权重，"
        "∂Aᵢⱼ/∂sᵢₖ = Aᵢⱼ(δⱼₖ − Aᵢₖ)。被掩码的分数权重 Aᵢⱼ = 0，所以梯度是 0 × (…) = 0："
        "**{hidden} 个被掩码的格子恰好为 0**（那里最大的 |值|：{largest}）。"
        "上面被遮住的权重的梯度到此为止。",
    },
    "backward.jacobian.header": {
        "en": "One query row of the softmax Jacobian, with its numbers",
        "zh": "softmax 雅可比矩阵的一行查询，带上数字",
    },
    "backward.jacobian.row": {"en": "Query row", "zh": "查询行"},
    "backward.jacobian.text": {
        "en": "For the query “{token}”, which sees {visible:key|keys}: the Jacobian "
        "J = diag(Aᵢ) − Aᵢ Aᵢᵀ (the heatmap), the weights Aᵢ, the gradient arriving from above "
        "∂L/∂Aᵢ, and their product J ∂L/∂Aᵢ, which is this row of the heatmap above. Here "
        "Σₖ Aᵢₖ ∂L/∂Aᵢₖ = {mean}, so each entry is Aᵢⱼ × (∂L/∂Aᵢⱼ − ({mean})):",
        "zh": "查询“{token}”能看到 {visible} 个键：雅可比矩阵 J = diag(Aᵢ) − Aᵢ Aᵢᵀ（热力图）、"
        "权重 Aᵢ、从上面传来的梯度 ∂L/∂Aᵢ，以及它们的乘积 J ∂L/∂Aᵢ，即上面热力图的这一行。"
        "这里 Σₖ Aᵢₖ ∂L/∂Aᵢₖ = {mean}，所以每一项是 Aᵢⱼ × (∂L/∂Aᵢⱼ − ({mean}))：",
    },
    "backward.jacobian.present_matrix": {
        "en": "For the query “{token}”, which sees {visible:key|keys}: the Jacobian of its softmax "
        "row, J = diag(Aᵢ) − Aᵢ Aᵢᵀ, one row and one column per key it sees. Next: J times the "
        "gradient arriving from above.",
        "zh": "查询“{token}”能看到 {visible} 个键：它的 softmax 行的雅可比矩阵 "
        "J = diag(Aᵢ) − Aᵢ Aᵢᵀ，它看到的每个键各占一行一列。下一屏：J 乘以从上面传来的梯度。",
    },
    "backward.jacobian.present_row": {
        "en": "For the query “{token}”: the weights Aᵢ, the gradient arriving from above "
        "∂L/∂Aᵢ, and their product J ∂L/∂Aᵢ, the query's row of ∂L/∂s. Here "
        "Σₖ Aᵢₖ ∂L/∂Aᵢₖ = {mean}, so each entry is Aᵢⱼ × (∂L/∂Aᵢⱼ − ({mean})):",
        "zh": "查询“{token}”：权重 Aᵢ、从上面传来的梯度 ∂L/∂Aᵢ，以及它们的乘积 J ∂L/∂Aᵢ，"
        "即这个查询在 ∂L/∂s 中的那一行。这里 Σₖ Aᵢₖ ∂L/∂Aᵢₖ = {mean}，所以每一项是 "
        "Aᵢⱼ × (∂L/∂Aᵢⱼ − ({mean}))：",
    },
    "backward.jacobian.more": {
        "en": "The first {shown} of {total:key|keys} are written out; the table lists all of them.",
        "zh": "只写出了 {total} 个键中的前 {shown} 个；表格列出了全部。",
    },
    "backward.jacobian.col_weight": {"en": "weight Aᵢⱼ", "zh": "权重 Aᵢⱼ"},
    "backward.jacobian.col_upstream": {"en": "∂L/∂Aᵢⱼ (from above)", "zh": "∂L/∂Aᵢⱼ（从上面传来）"},
    "backward.jacobian.col_result": {"en": "∂L/∂sᵢⱼ = (J ∂L/∂Aᵢ)ⱼ", "zh": "∂L/∂sᵢⱼ = (J ∂L/∂Aᵢ)ⱼ"},
    "backward.masked_scores.header": {
        "en": "Masked scores ← the scaled scores (÷ √d_k)",
        "zh": "掩码后的分数 ← 缩放后的分数（÷ √d_k）",
    },
    "backward.masked_scores.text": {
        "en": "The scores were divided by √d_k = √{d_k} = {scale}, so their gradient is divided "
        "by it too: the same picture, {scale:time|times} smaller.",
        "zh": "分数除以了 √d_k = √{d_k} = {scale}，所以梯度也除以它：同样的图案，缩小为 "
        "1/{scale}。",
    },
    "backward.attn_scores.header": {
        "en": "Raw scores ω = Q Kᵀ ← the masked scores (the mask)",
        "zh": "原始分数 ω = Q Kᵀ ← 掩码后的分数（掩码）",
    },
    "backward.attn_scores.text": {
        "en": "masked_fill wrote −∞ over the future and kept the rest. Backward, it passes the "
        "gradient through where it kept a score and sends 0 where it wrote −∞: **every cell of "
        "the upper triangle ({hidden:cell|cells}) is exactly 0** (the largest |value| there: {largest}). "
        "So the pairs (query, future key) add nothing to the gradients of W_query and W_key.",
        "zh": "masked_fill 在未来的位置写入 −∞，其余保持不变。反向时，保留的分数把梯度原样"
        "传过去，写入 −∞ 的地方传回 0：**上三角的 {hidden} 个格子恰好为 0**"
        "（那里最大的 |值|：{largest}）。所以（查询，未来的键）这样的配对对 W_query 和 "
        "W_key 的梯度没有任何贡献。",
    },
    "backward.projections.header": {
        "en": "Queries Q, keys K, values V ← the scores and the context vectors",
        "zh": "查询 Q、键 K、值 V ← 分数与上下文向量",
    },
    "backward.projections.text_qk": {
        "en": "Q and K get their gradient from the scores: row i of ∂L/∂ω mixes the keys query i "
        "saw, column j mixes the queries that saw key j.",
        "zh": "Q 和 K 的梯度来自分数：∂L/∂ω 的第 i 行混合了查询 i 看到的键，第 j 列混合了看到"
        "键 j 的查询。",
    },
    "backward.projections.text_v": {
        "en": "V gets its gradient from the context vectors, weighted by the dropped weights Ã: a "
        "value vector gets gradient only from the queries that kept it.",
        "zh": "V 的梯度来自上下文向量，按 dropout 后的权重 Ã 加权：一个值向量只从保留了"
        "它的查询那里得到梯度。",
    },
    "backward.weights.header": {
        "en": "Weights W_q, W_k, W_v ← Q, K, V",
        "zh": "权重 W_q、W_k、W_v ← Q、K、V",
    },
    "backward.weights.text": {
        "en": "Each projection is X W, so the weight's gradient is Xᵀ times the projection's "
        "gradient, summed over the tokens. These three matrices, in the x @ W layout "
        "(d_in × d_out; nn.Linear stores the transpose), are what `loss.backward()` leaves in "
        "`W_query.weight.grad` and the others for the book's class (pinned by the tests).",
        "zh": "每个投影都是 X W，所以权重的梯度是 Xᵀ 乘以投影的梯度，对所有词元求和。"
        "这三个矩阵按 x @ W 的布局（d_in × d_out；nn.Linear 存的是转置），就是书中的类在 "
        "`loss.backward()` 之后留在 `W_query.weight.grad` 等处的梯度（由测试保证）。",
    },
    # 3. the graph
    "backward.graph.header": {"en": "3. The autograd graph", "zh": "3. 自动求导图"},
    "backward.graph.text": {
        "en": "The graph PyTorch recorded during this forward pass: {nodes} backward functions "
        "and {edges:arrow|arrows}. Each box is named as PyTorch names it (the `grad_fn` of a tensor); "
        "its second line is the step it belongs to. The arrows follow the gradient from the "
        "loss to the `AccumulateGrad` boxes, which write the `.grad` of the weights and "
        "the inputs (the inputs are made a leaf here so that their gradient exists; in the "
        "book's recipe they are plain data and have no box). The context vectors' `grad_fn` is "
        "`{root}`, the name `print(context_vecs)` shows in the book's chapter 3 run; the book's CausalAttention records the "
        "same graph (pinned by the tests).",
        "zh": "这是 PyTorch 在这次前向计算中记录的图：{nodes} 个反向函数、{edges} 条箭头。"
        "每个方框的名字就是 PyTorch 给的名字（张量的 `grad_fn`）；第二行是它所属的步骤。"
        "箭头沿梯度方向，从损失一直指向 `AccumulateGrad` 方框，由它们写入权重和输入的 "
        "`.grad`（这里把输入设为叶子节点，以便得到它的梯度；书中的做法里输入只是普通数据，"
        "没有这个方框）。上下文向量的 `grad_fn` 是 `{root}`，正是书中第 3 章运行 `print(context_vecs)` 时显示的名字；"
        "书中的 CausalAttention 记录的是同一张图（由测试保证）。",
    },
    "backward.graph.table": {
        "en": "The nodes, step by step (as text)",
        "zh": "各步骤的节点（文字版）",
    },
    "backward.graph.col_step": {"en": "Step", "zh": "步骤"},
    "backward.graph.col_nodes": {"en": "Backward functions", "zh": "反向函数"},
    "backward.node.loss": {"en": "loss", "zh": "损失"},
    "backward.node.output": {"en": "output", "zh": "输出"},
    "backward.node.context": {"en": "context vectors z", "zh": "上下文向量 z"},
    "backward.node.head_context": {"en": "head context", "zh": "各头的上下文"},
    "backward.node.dropped_weights": {"en": "dropout: Ã", "zh": "dropout：Ã"},
    "backward.node.attn_weights": {"en": "softmax: A", "zh": "softmax：A"},
    "backward.node.scaled_scores": {"en": "÷ √d_k: s", "zh": "÷ √d_k：s"},
    "backward.node.masked_scores": {"en": "mask: −∞", "zh": "掩码：−∞"},
    "backward.node.attn_scores": {"en": "scores ω = Q Kᵀ", "zh": "分数 ω = Q Kᵀ"},
    "backward.node.queries": {"en": "queries Q = X W_q", "zh": "查询 Q = X W_q"},
    "backward.node.keys": {"en": "keys K = X W_k", "zh": "键 K = X W_k"},
    "backward.node.values": {"en": "values V = X W_v", "zh": "值 V = X W_v"},
    "backward.node.W_query": {"en": "W_query", "zh": "W_query（查询权重）"},
    "backward.node.W_key": {"en": "W_key", "zh": "W_key（键权重）"},
    "backward.node.W_value": {"en": "W_value", "zh": "W_value（值权重）"},
    "backward.node.b_query": {"en": "b_query", "zh": "b_query（查询偏置）"},
    "backward.node.b_key": {"en": "b_key", "zh": "b_key（键偏置）"},
    "backward.node.b_value": {"en": "b_value", "zh": "b_value（值偏置）"},
    "backward.node.W_out": {"en": "out_proj weight", "zh": "out_proj 权重"},
    "backward.node.b_out": {"en": "out_proj bias", "zh": "out_proj 偏置"},
    "backward.node.inputs": {"en": "inputs X", "zh": "输入 X"},
    # 4. learning
    "backward.learn.header": {"en": "4. Learning steps", "zh": "4. 学习的步伐"},
    "backward.learn.text": {
        "en": "Gradient descent moves every weight a little against its gradient; η is the "
        "learning rate. The same forward pass then runs again with the new weights, the same "
        "inputs and the same dropout mask, so the change in the loss comes from the step alone.",
        "zh": "梯度下降把每个权重沿梯度的反方向挪一点；η 是学习率。然后用新的权重、相同的输入"
        "和相同的 dropout 掩码再做一次同样的前向计算，所以损失的变化只来自这一步。",
    },
    "backward.learn.lr": {"en": "Learning rate η", "zh": "学习率 η"},
    "backward.learn.lr_help": {
        "en": "How far each step goes, between {low} and {high}. Too large, and the loss jumps "
        "up instead of down.",
        "zh": "每一步走多远，介于 {low} 和 {high} 之间。太大时，损失会不降反升。",
    },
    "backward.learn.another": {"en": "Take another step", "zh": "再走一步"},
    "backward.learn.reset": {"en": "Start over", "zh": "重新开始"},
    "backward.learn.limit": {
        "en": "At {tokens:token|tokens} at most {limit:step|steps} are computed (each step is a forward and "
        "a backward pass).",
        "zh": "在 {tokens} 个词元时最多计算 {limit} 步（每一步都是一次前向和一次反向计算）。",
    },
    "backward.learn.diverged": {
        "en": "After {steps:step|steps} the numbers overflowed: the learning rate η = {lr} is too "
        "large. The steps stop at the last one that worked; try a smaller η.",
        "zh": "走了 {steps} 步后数值溢出：学习率 η = {lr} 太大。步骤停在最后一次成功的地方；"
        "请试试更小的 η。",
    },
    "backward.learn.diverged_first": {
        "en": "The first learning step already overflowed float32: the learning rate η = {lr} is "
        "too large for numbers this size, so no step was taken and the weights are still the "
        "seed's. Try a smaller η.",
        "zh": "第一步学习就已使 float32 溢出：对于这么大的数值，学习率 η = {lr} 太大，所以一步也没有走，"
        "权重仍是种子给出的初始权重。请试试更小的 η。",
    },
    "backward.learn.loss_now": {
        "en": "Loss now (no step taken)",
        "zh": "当前损失（尚未走任何一步）",
    },
    "backward.learn.loss_before": {"en": "Loss before step {step}", "zh": "第 {step} 步之前的损失"},
    "backward.learn.loss_after": {"en": "Loss after step {step}", "zh": "第 {step} 步之后的损失"},
    "backward.learn.predicted": {
        "en": "Predicted change (first order)",
        "zh": "预测的变化（一阶近似）",
    },
    "backward.learn.predicted_help": {
        "en": "−η × the sum of the squared gradients of all weights: the change if the loss were "
        "a straight line near the current weights. The real change differs by the curvature.",
        "zh": "−η × 所有权重梯度的平方和：假如损失在当前权重附近是一条直线，这一步带来的变化。"
        "实际变化与它的差别来自曲率。",
    },
    "backward.learn.axis_step": {"en": "learning steps", "zh": "学习步数"},
    "backward.learn.axis_loss": {"en": "loss", "zh": "损失"},
    "backward.learn.same_mask": {
        "en": "Each point is the loss after that many steps, with the same dropout mask every "
        "time. (In real training every forward pass draws a new mask, and the loss wobbles.)",
        "zh": "每个点是走了相应步数后的损失，每次都用同一个 dropout 掩码。（真实训练中每次前向"
        "计算都会抽取新的掩码，损失会上下波动。）",
    },
    "backward.learn.bias": {
        "en": "With qkv_bias on, the biases take the step too.",
        "zh": "开启 qkv_bias 时，偏置也一起走这一步。",
    },
    "backward.learn.weights_header": {
        "en": "The weights after step {step}",
        "zh": "第 {step} 步之后的权重",
    },
    "backward.learn.updated": {"en": "{name} after the step", "zh": "这一步之后的 {name}"},
    # 5. export
    "backward.export.header": {"en": "5. Take it home", "zh": "5. 带回家"},
    "backward.export.json": {"en": "Download the gradients (JSON)", "zh": "下载梯度（JSON）"},
    "backward.export.json_help": {
        "en": "The loss, every gradient of this page (nested lists, each with its shape) and the "
        "autograd graph (nodes and arrows).",
        "zh": "损失、本页的所有梯度（嵌套列表，各附形状）以及自动求导图（节点与箭头）。",
    },
    "backward.export.too_large": {
        "en": "This view is too large to download as JSON.",
        "zh": "这个视图太大，无法下载为 JSON。",
    },
    "backward.tab.scores": {
        "en": "2a · From the loss back to the scores",
        "zh": "2a · 从损失回到注意力分数",
    },
    "backward.tab.projections": {
        "en": "2b · Into Q, K, V and the weights",
        "zh": "2b · 到 Q、K、V 和权重矩阵",
    },
    "backward.tab.graph": {"en": "3 · The autograd graph", "zh": "3 · 自动求导图"},
    "backward.tab.learn": {"en": "4 · Learning steps", "zh": "4 · 学习的步伐"},
}
