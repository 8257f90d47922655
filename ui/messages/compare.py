"""Messages of the Compare A/B page."""

MESSAGES = {
    "compare.intro": {
        "en": "Change one setting and see exactly what it changes. **A** is the sidebar's settings; "
        "**B** is set here (it starts as a copy of A). Both run the same tokens through one "
        "CausalAttention head, and the page shows A, B and the difference B − A.",
        "zh": "只改一个设置，看清它到底改变了什么。**A** 是侧边栏的设置；**B** 在本页设置"
        "（初始时是 A 的副本）。两者都让同样的词元通过一个 CausalAttention 头，本页显示 A、B "
        "以及差值 B − A。",
    },
    "compare.b_header": {"en": "Setting B", "zh": "设置 B"},
    "compare.presets": {
        "en": "Quick presets (B = A with one change):",
        "zh": "快速预设（B = A，只改一处）：",
    },
    "compare.preset.copy": {"en": "B = A", "zh": "B = A"},
    "compare.preset.copy_help": {
        "en": "Copy every sidebar setting into B.",
        "zh": "把侧边栏的所有设置复制到 B。",
    },
    "compare.preset.dropout": {"en": "Dropout off vs on", "zh": "Dropout 关 vs 开"},
    "compare.preset.dropout_help": {
        "en": "B = A, but with dropout switched on (p = 0.5, training mode) if A has none, "
        "or off (p = 0) if A has it.",
        "zh": "B = A，但如果 A 没有 dropout，就为 B 打开（p = 0.5，训练模式）；如果 A 有，就关闭"
        "（p = 0）。",
    },
    "compare.preset.seed": {"en": "Another seed", "zh": "换一个种子"},
    "compare.preset.seed_help": {
        "en": "B = A with seed + 1: new random weights (and a new dropout mask).",
        "zh": "B = A，种子加 1：新的随机权重（以及新的 dropout 掩码）。",
    },
    "compare.preset.bias": {"en": "Bias on/off", "zh": "偏置 开/关"},
    "compare.preset.bias_help": {
        "en": "B = A with qkv_bias flipped.",
        "zh": "B = A，但 qkv_bias 取反。",
    },
    "compare.seed": {"en": "B: seed", "zh": "B：随机种子"},
    "compare.dropout": {"en": "B: dropout p", "zh": "B：dropout 比率 p"},
    "compare.train": {"en": "B: training mode", "zh": "B：训练模式"},
    "compare.qkv_bias": {"en": "B: qkv_bias", "zh": "B：qkv_bias"},
    "compare.d_out": {"en": "B: d_out", "zh": "B：d_out"},
    "compare.settings_header": {"en": "What differs", "zh": "哪些设置不同"},
    "compare.col.setting": {"en": "setting", "zh": "设置"},
    "compare.col.a": {"en": "A (sidebar)", "zh": "A（侧边栏）"},
    "compare.col.b": {"en": "B (this page)", "zh": "B（本页）"},
    "compare.col.differs": {"en": "differs", "zh": "是否不同"},
    "compare.differs_yes": {"en": "≠ differs", "zh": "≠ 不同"},
    "compare.differs_no": {"en": "= same", "zh": "= 相同"},
    "compare.same_settings": {
        "en": "B has the same settings as A, so every difference below is exactly 0. "
        "Change a B control or pick a preset.",
        "zh": "B 与 A 设置相同，所以下面的差值全部恰好为 0。请修改 B 的控件或选择一个预设。",
    },
    "compare.value.yes": {"en": "yes", "zh": "是"},
    "compare.value.no": {"en": "no", "zh": "否"},
    "compare.list_separator": {"en": ", ", "zh": "、"},
    "compare.differs_in": {
        "en": "B differs from A in: {names}.",
        "zh": "B 与 A 的不同之处：{names}。",
    },
    "compare.inactive_note": {
        "en": "Note: dropout only acts in training mode with p > 0. Here it is active in "
        "A: {a}, in B: {b}.",
        "zh": "注意：dropout 只在训练模式且 p > 0 时生效。此处 A：{a}，B：{b}。",
    },
    "compare.weights_header": {
        "en": "Attention weights after dropout",
        "zh": "dropout 之后的注意力权重",
    },
    "compare.weights_caption": {
        "en": "dropped_weights: softmax, then dropout (identical to attn_weights when dropout is "
        "inactive). Rows are queries, columns are keys; the colour range is shared by A and B.",
        "zh": "dropped_weights：先 softmax，再 dropout（dropout 不生效时与 attn_weights 相同）。"
        "行是查询，列是键；A 和 B 使用相同的颜色范围。",
    },
    "compare.a_weights": {"en": "A: weights", "zh": "A：权重"},
    "compare.b_weights": {"en": "B: weights", "zh": "B：权重"},
    "compare.max_weight_diff": {"en": "largest |B − A| of the weights", "zh": "权重的最大 |B − A|"},
    "compare.max_context_diff": {
        "en": "largest |B − A| of the context vectors",
        "zh": "上下文向量的最大 |B − A|",
    },
    "compare.diff_explain": {
        "en": "B − A cell by cell: one end of the colour scale where B is larger, the other end "
        "where B is smaller, the middle colour (white) where both agree.",
        "zh": "逐个单元格的 B − A：B 更大时取颜色刻度的一端，B 更小时取另一端，两者一致时为中间色（白色）。",
    },
    "compare.context_header": {"en": "Context vectors", "zh": "上下文向量"},
    "compare.context_caption": {
        "en": "context_vec = dropped_weights @ values: one row per token, one column per output "
        "feature.",
        "zh": "context_vec = dropped_weights @ values：每个词元一行，每个输出特征一列。",
    },
    "compare.a_context": {"en": "A: context vectors", "zh": "A：上下文向量"},
    "compare.b_context": {"en": "B: context vectors", "zh": "B：上下文向量"},
    "compare.widths_differ": {
        "en": "A's context vectors have {a:feature|features} and B's have {b} (d_out differs), so they "
        "cannot be subtracted: they are shown side by side instead.",
        "zh": "A 的上下文向量有 {a} 个特征，B 的有 {b} 个（d_out 不同），所以无法相减：改为并排显示。",
    },
    "compare.difference": {"en": "B − A", "zh": "B − A"},
    "compare.value": {"en": "value", "zh": "数值"},
    "compare.one_head_note": {
        "en": "One head (CausalAttention), as on the learning pages; the sidebar's head count is "
        "not used here.",
        "zh": "单头（CausalAttention），与学习页面相同；此处不使用侧边栏的头数。",
    },
    "compare.error_b": {
        "en": "Setting B cannot be computed: {detail}",
        "zh": "无法计算设置 B：{detail}",
    },
}
