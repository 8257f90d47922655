"""Messages of the One query, by hand page (``pages/one_query.py``)."""

MESSAGES = {
    "one_query.intro": {
        "en": "Follow one query through the layer with the actual numbers of this run (one "
        "CausalAttention head, the sidebar's seed, d_out and dropout). Positions count from 1, "
        "as the book writes x⁽²⁾ for the second token.",
        "zh": "用本次运行的真实数字，跟随一个查询走完整个层（单个 CausalAttention 头，"
        "使用侧边栏的随机种子、d_out 和 dropout）。位置从 1 开始计数，与书中把第二个词元写作 x⁽²⁾ 一致。",
    },
    "one_query.query": {"en": "Query token (position: token)", "zh": "查询词元（位置：词元）"},
    "one_query.query_help": {
        "en": "The token whose context vector is computed. The book uses the 2nd token, journey.",
        "zh": "要计算其上下文向量的词元。书中使用第 2 个词元 journey。",
    },
    "one_query.short_query": {"en": "query", "zh": "查询"},
    "one_query.short_key": {"en": "key", "zh": "键"},
    "one_query.key": {"en": "Key token (position: token)", "zh": "键词元（位置：词元）"},
    "one_query.key_help": {
        "en": "The token whose score against the query is written out term by term.",
        "zh": "与查询计算注意力分数、并逐项写出点积的词元。",
    },
    "one_query.step1": {"en": "① The query and the key", "zh": "① 查询与键"},
    "one_query.step1_caption": {
        "en": "q⁽{si}⁾ is the query of “{query_token}” (row {i} of Q = X · W_query); k⁽{sj}⁾ is the "
        "key of “{key_token}” (row {j} of K = X · W_key). d_k = {d_k}.",
        "zh": "q⁽{si}⁾ 是“{query_token}”的查询（Q = X · W_query 的第 {i} 行）；k⁽{sj}⁾ 是“{key_token}”的键"
        "（K = X · W_key 的第 {j} 行）。d_k = {d_k}。",
    },
    "one_query.step2": {
        "en": "② Their dot product: the attention score ω",
        "zh": "② 二者的点积：注意力分数 ω",
    },
    "one_query.step2_caption": {
        "en": "Multiply the two vectors component by component and add the products.",
        "zh": "把两个向量按分量逐项相乘，再把乘积相加。",
    },
    "one_query.future_key": {
        "en": "Key {j} comes after query {i}: this score is computed, but the causal mask then "
        "replaces it with −∞, so it never counts.",
        "zh": "键 {j} 位于查询 {i} 之后：这个分数会被算出来，但因果掩码随后把它替换为 −∞，因此它不起作用。",
    },
    "one_query.step3": {
        "en": "③ The whole row of scores, with the causal mask",
        "zh": "③ 整行注意力分数与因果掩码",
    },
    "one_query.mask_reason": {
        "en": "Keys {first} to {last} come after the query: a token may only look at itself and "
        "earlier tokens, so the causal mask sets their scores to −∞ before softmax "
        "(exp(−∞) = 0, weight 0).",
        "zh": "键 {first} 到 {last} 位于查询之后：一个词元只能看到自己和前面的词元，"
        "因此因果掩码在 softmax 之前把它们的分数设为 −∞（exp(−∞) = 0，权重为 0）。",
    },
    "one_query.mask_reason_one": {
        "en": "Key {first} comes after the query: a token may only look at itself and earlier "
        "tokens, so the causal mask sets its score to −∞ before softmax (exp(−∞) = 0, weight 0).",
        "zh": "键 {first} 位于查询之后：一个词元只能看到自己和前面的词元，"
        "因此因果掩码在 softmax 之前把它的分数设为 −∞（exp(−∞) = 0，权重为 0）。",
    },
    "one_query.mask_none": {
        "en": "This is the last token: every key is at or before it, nothing is masked.",
        "zh": "这是最后一个词元：所有键都在它之前或就是它本身，没有被掩码的分数。",
    },
    "one_query.step4": {"en": "④ Scale by √d_k", "zh": "④ 除以 √d_k 进行缩放"},
    "one_query.step4_caption": {
        "en": "Dividing by √d_k keeps the scores from growing with the vector size, so softmax "
        "does not saturate.",
        "zh": "除以 √d_k 让分数不会随向量维度增大而变大，softmax 因而不会饱和。",
    },
    "one_query.step5": {
        "en": "⑤ Softmax: exp, then normalize",
        "zh": "⑤ Softmax：先取 exp，再归一化",
    },
    "one_query.step5_caption": {
        "en": "Each weight is its exp divided by the sum of the row's exps; the row's weights add "
        "up to 1.",
        "zh": "每个权重等于它的 exp 除以整行 exp 之和；整行权重之和为 1。",
    },
    "one_query.step5_shift": {
        "en": "The scores are large, so the exps are written as e^(s − m), m the largest score: "
        "softmax gives the same weights (this is also how PyTorch avoids overflow).",
        "zh": "分数很大，因此 exp 写作 e^(s − m)，m 为最大分数：softmax 的结果不变"
        "（PyTorch 也是这样避免溢出的）。",
    },
    "one_query.step6": {"en": "⑥ Dropout on the row", "zh": "⑥ 对这一行做 dropout"},
    "one_query.dropout_off_eval": {
        "en": "Dropout is inactive in evaluation mode (training mode is off): α′ = α.",
        "zh": "评估模式下（训练模式关闭）dropout 不起作用：α′ = α。",
    },
    "one_query.dropout_off_zero": {
        "en": "Dropout rate p = 0: every weight is kept unchanged, α′ = α.",
        "zh": "Dropout 比率 p = 0：每个权重保持不变，α′ = α。",
    },
    "one_query.dropout_on": {
        "en": "p = {p}. Visible keys in this row: {visible}; kept: {kept} (each multiplied by "
        "1/(1−p) = {scale}); dropped: {dropped} (set to 0). The row now sums to {total} instead "
        "of 1; averaged over many random masks it is still 1.",
        "zh": "p = {p}。这一行的可见键：{visible} 个；保留：{kept} 个（各乘以 1/(1−p) = {scale}）；"
        "丢弃：{dropped} 个（置 0）。这一行的和现在是 {total} 而不是 1；在多次随机掩码上取平均，仍然是 1。",
    },
    "one_query.step7": {
        "en": "⑦ The context vector: a weighted sum of the value vectors",
        "zh": "⑦ 上下文向量：值向量的加权和",
    },
    "one_query.step7_caption": {
        "en": "z⁽{si}⁾ for “{query_token}” (the trace's context vector). Each v⁽ʲ⁾ is a row of "
        "V = X · W_value.",
        "zh": "“{query_token}”的 z⁽{si}⁾（trace 中的上下文向量）。每个 v⁽ʲ⁾ 是 V = X · W_value 的一行。",
    },
    "one_query.row_table": {"en": "The whole row, key by key", "zh": "整行数值，逐个键"},
    "one_query.row_table_caption": {
        "en": "Every number of query {i}'s row (steps ③ to ⑥): score ω, scaled score s, exp(s), "
        "weight α, dropout, weight after dropout α′. The chosen key is highlighted.",
        "zh": "查询 {i} 这一行的每个数值（步骤 ③ 到 ⑥）：分数 ω、缩放后的分数 s、exp(s)、"
        "权重 α、dropout、dropout 之后的权重 α′。所选的键已高亮。",
    },
    "one_query.col_score": {"en": "ω", "zh": "ω"},
    "one_query.col_scaled": {"en": "s = ω/√dₖ", "zh": "s = ω/√dₖ"},
    "one_query.col_exp": {"en": "exp(s)", "zh": "exp(s)"},
    "one_query.col_exp_shift": {"en": "exp(s − m)", "zh": "exp(s − m)"},
    "one_query.col_weight": {"en": "α", "zh": "α"},
    "one_query.col_dropout": {"en": "dropout", "zh": "dropout"},
    "one_query.col_after": {"en": "α′", "zh": "α′"},
    "one_query.masked": {"en": "masked", "zh": "已掩码"},
    "one_query.kept": {"en": "kept ×{scale}", "zh": "保留 ×{scale}"},
    "one_query.no_dropout": {"en": "off", "zh": "未启用"},
    "one_query.sum_row": {"en": "sum", "zh": "总和"},
    "one_query.plot_caption": {
        "en": "Arrows: the value vectors v⁽ʲ⁾; thicker and darker = larger weight α′. Dotted grey: "
        "masked (future) keys. Dashed orange: α′₁v⁽¹⁾ + α′₂v⁽²⁾ + … laid tip to tail; it ends at "
        "the red star, the context vector.",
        "zh": "箭头：值向量 v⁽ʲ⁾；越粗越深 = 权重 α′ 越大。灰色点线：被掩码的（未来的）键。"
        "橙色虚线：α′₁v⁽¹⁾ + α′₂v⁽²⁾ + … 首尾相接；终点是红色星号，即上下文向量。",
    },
    "one_query.plot_average": {
        "en": "Without dropout the weights are positive and add up to 1: the context vector is a "
        "weighted average and lies inside the shape spanned by the visible value vectors.",
        "zh": "没有 dropout 时，权重为正且和为 1：上下文向量是加权平均，位于可见值向量所围成的区域之内。",
    },
    "one_query.plot_needs_2d": {
        "en": "The arrow picture needs d_out = 2 (now d_out = {d_out}); set it in the sidebar. "
        "Here are the row's weights instead.",
        "zh": "箭头图需要 d_out = 2（当前 d_out = {d_out}）；请在侧边栏设置。这里改为显示这一行的权重。",
    },
    "one_query.fig_title": {
        "en": "Value vectors and the context vector of query {i}",
        "zh": "查询 {i} 的值向量与上下文向量",
    },
    "one_query.bar_title": {"en": "Weights of query {i}", "zh": "查询 {i} 的权重"},
    "one_query.fig_value": {"en": "value vector", "zh": "值向量"},
    "one_query.fig_masked": {"en": "masked", "zh": "已掩码"},
    "one_query.fig_context": {"en": "context vector", "zh": "上下文向量"},
    "one_query.fig_path": {"en": "weighted sum, tip to tail", "zh": "加权和（首尾相接）"},
    "one_query.fig_weight": {"en": "weight", "zh": "权重"},
    "one_query.fig_before": {"en": "α (before dropout)", "zh": "α（dropout 前）"},
    "one_query.fig_after": {"en": "α′ (after dropout)", "zh": "α′（dropout 后）"},
    "one_query.fig_key": {"en": "key", "zh": "键"},
    "one_query.fig_x_axis": {"en": "component 1", "zh": "分量 1"},
    "one_query.fig_y_axis": {"en": "component 2", "zh": "分量 2"},
}
