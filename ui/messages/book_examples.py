"""Messages of the book's examples (``ui/book_examples.py``): one note and one button each."""

MESSAGES = {
    "book_example.offer": {
        "en": "**The book's example ({section}).** {recipe} It needs {settings} and the book's "
        "six embeddings; the button sets them all. {link}",
        "zh": "**书中的示例（{section}）。** {recipe} 它需要 {settings} 以及书中的六个嵌入向量；"
        "按钮会一次全部设置好。{link}",
    },
    "book_example.set": {
        "en": "**The book's example ({section}) is set up:** {settings}, the book's six "
        "embeddings. {recipe}",
        "zh": "**书中的示例（{section}）已设置好：** {settings}，书中的六个嵌入向量。{recipe}",
    },
    "book_example.link": {
        "en": "A link carries them too: `?{query}` opens it on a fresh page.",
        "zh": "链接也会带上它们：`?{query}` 在新打开的页面上直接显示它。",
    },
    "book_example.link_plain": {
        "en": "They are the app's defaults: the page's plain link opens it.",
        "zh": "它们就是应用的默认设置：本页的普通链接就能打开它。",
    },
    "book_example.button": {
        "en": "Set up the book's example ({section})",
        "zh": "设置为书中的示例（{section}）",
    },
    "book_example.agrees": {
        "en": "Compared just now with the book's printout: the same to its 4 decimals (largest "
        "difference {difference}).",
        "zh": "刚刚与书中打印的结果比较：在其 4 位小数内相同（最大差值 {difference}）。",
    },
    "book_example.differs": {
        "en": "Compared just now with the book's printout: this machine differs by up to "
        "{difference}, more than its 4 decimals.",
        "zh": "刚刚与书中打印的结果比较：这台机器的结果最多相差 {difference}，超出了打印的 4 位小数。",
    },
    "book_example.masking.recipe": {
        "en": "The book masks the scores of `SelfAttention_v2(3, 2)` built right after "
        "`torch.manual_seed(789)`. This page's layer is one `CausalAttention` head, which "
        "creates `W_query`, `W_key`, `W_value` in v2's order: at seed 789 its scores are v2's.",
        "zh": "书中对紧跟在 `torch.manual_seed(789)` 之后创建的 `SelfAttention_v2(3, 2)` 的分数做掩码。"
        "本页的层是一个 `CausalAttention` 头，它按 v2 的顺序创建 `W_query`、`W_key`、`W_value`："
        "种子为 789 时，它的分数就是 v2 的分数。",
    },
    "book_example.multi_head.recipe": {
        "en": "The book runs `MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)` and "
        "`MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)`, each right after "
        "`torch.manual_seed(123)`, on a batch of two copies of its six embeddings.",
        "zh": "书中在 `torch.manual_seed(123)` 之后分别运行 "
        "`MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)` 和 "
        "`MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)`，输入是书中六个嵌入向量的两份拷贝组成的批次。",
    },
    "book_example.chapter_path.recipe": {
        "en": "The book builds `SelfAttention_v1(3, 2)` after `torch.manual_seed(123)` and "
        "`SelfAttention_v2(3, 2)` after `torch.manual_seed(789)`.",
        "zh": "书中在 `torch.manual_seed(123)` 之后创建 `SelfAttention_v1(3, 2)`，"
        "在 `torch.manual_seed(789)` 之后创建 `SelfAttention_v2(3, 2)`。",
    },
    "book_example.fast_path.recipe": {
        "en": "The book's printed `MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)`, built right "
        "after `torch.manual_seed(123)`: the fast paths get its weights.",
        "zh": "书中打印过的 `MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)`，紧跟在 "
        "`torch.manual_seed(123)` 之后创建：各条快速路径使用它的权重。",
    },
}
