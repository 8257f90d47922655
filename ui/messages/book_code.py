"""Messages of the book's code shown beside a step (``ui/book_code.py``)."""

MESSAGES = {
    "book_code.expander": {
        "en": "The book's code: the lines of {cls} that compute this",
        "zh": "书中的代码：{cls} 中计算这一步的语句",
    },
    "book_code.caption": {
        "en": "{cls} as attention/modules.py writes it; lines {lines} are marked {marker}.",
        "zh": "attention/modules.py 中的 {cls}；{marker} 标出第 {lines} 行。",
    },
    "book_code.multi_head.expander": {
        "en": "The book's code: MultiHeadAttention, stage by stage",
        "zh": "书中的代码：MultiHeadAttention，逐个阶段",
    },
    "book_code.stage.choose": {"en": "Stage", "zh": "阶段"},
    "book_code.stage.split": {"en": "Split into heads (view)", "zh": "拆分成多个头（view）"},
    "book_code.stage.transpose": {"en": "Heads first (transpose)", "zh": "头放到前面（transpose）"},
    "book_code.stage.mask": {"en": "Causal mask, every head", "zh": "每个头的因果掩码"},
    "book_code.stage.weights": {"en": "Softmax and dropout", "zh": "softmax 与 dropout"},
    "book_code.stage.join": {
        "en": "Join the heads (contiguous view)",
        "zh": "合并各头（contiguous view）",
    },
    "book_code.stage.out_proj": {"en": "out_proj", "zh": "输出投影 out_proj"},
}

# The comments of the code the app shows (attention/modules.py, the bug gallery's lines, the
# Export page's script, the chapter's path), in Chinese. Keyed by the English comment (after
# "# "); a {field} stands for a part that varies (a class name, a size) and is kept as it is.
# The Chinese follows the book's Chinese edition of CausalAttention where it has the same comment
# (/work/shared/seed: "增加 Dropout 层", "将维度1和2转置，将批维度保持在第一个位置",
# "直接修改传入的矩阵，而不是返回副本", "对注意力权重矩阵进行dropout操作", "为了复现，设置随机种子").
CODE_COMMENTS = {
    "new: dropout layer": "新增：增加 Dropout 层",
    "new: the causal mask, (context_length, context_length)": (
        "新增：生成固定的因果掩码并注册为缓冲区，(context_length, context_length)"
    ),
    "(b, T, T): keep the batch axis first": "(b, T, T)：将维度 1 和 2 转置，批维度保持在第一个位置",
    "new: in place, hide the future with -inf": (
        "新增：直接修改传入的矩阵（不返回副本），用 -inf 遮住未来的词元"
    ),
    "new: dropout on the weights": "新增：对注意力权重矩阵进行 dropout 操作",
    "reduce the projection dim to match desired output dim": "减小投影维度，以匹配所需的输出维度",
    "a linear layer to combine head outputs": "一个线性层，用于组合各个头的输出",
    "Split the last dimension into heads: (b, T, d_out) -> (b, T, h, head_dim)": (
        "把最后一个维度拆分成多个头：(b, T, d_out) -> (b, T, h, head_dim)"
    ),
    "Scaled dot-product attention with a causal mask, for every head at once": (
        "带因果掩码的缩放点积注意力，所有头一次算完"
    ),
    "Combine heads: (b, T, h, head_dim) -> (b, T, d_out)": (
        "合并各个头：(b, T, h, head_dim) -> (b, T, d_out)"
    ),
    "optional projection": "可选的投影",
    "omega: (T, T)": "注意力分数 ω：(T, T)",
    "training=True by default": "默认 training=True",
    "if training": "仅在训练时",
    "no transpose": "没有 transpose",
    "{cls}: the book's class, as chapter 3 writes it": "{cls}：书中的类，与第 3 章的写法相同",
    "the row labels": "行标签（词元）",
    "(T, d_in) = ({rows}, {cols}): one embedding vector per token": (
        "(T, d_in) = ({rows}, {cols})：输入的嵌入向量，每个词元一个"
    ),
    "the mask covers every token": "词元的数量，用于设置掩码矩阵：掩码覆盖每个词元",
    "fixes the weights and the dropout mask": "为了复现，设置随机种子：固定权重和 dropout 掩码",
    "training mode: dropout acts": "训练模式：dropout 生效",
    "evaluation mode: dropout does nothing": "评估模式：dropout 不起作用",
    "a batch of one: (1, T, ·)": "模拟批量输入，批量大小为 1：(1, T, ·)",
    "full precision, for comparing": "完整精度，便于比较",
    "every step: trace.attn_weights, trace.context…": "每一步：trace.attn_weights、trace.context…",
    "(1, T, ·): the layer's output": "(1, T, ·)：该层的输出",
    "inside: {code}, then W_key, W_value": "类内部：{code}，然后是 W_key、W_value",
    "dropout rate of 50%": "dropout 比率为 50%",
    "attn_scores.masked_fill_(…) left out: self.mask is registered but never used": (
        "漏掉了 attn_scores.masked_fill_(…)：self.mask 注册了却从未使用"
    ),
    "(b, T, ·): the layer's output": "(b, T, ·)：该层的输出",
    "create a matrix of ones": "创建一个全 1 矩阵",
    "the queries' own rows": "查询自己位置的那几行",
    "rows from 0 (PR #697's slip)": "从第 0 行开始（PR #697 的失误）",
}
