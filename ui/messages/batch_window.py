"""Messages of the batch and the sliding window on the step page (``ui/batch_window.py``)."""

MESSAGES = {
    "batchwin.settings": {
        "en": "a batch of {batch} (batch item 0 shown)",
        "zh": "批次大小 {batch}（显示第 0 个批次项）",
    },
    "batchwin.settings_window": {
        "en": "sliding window of {window:token|tokens}",
        "zh": "滑动窗口 {window} 个词元",
    },
    "batchwin.settings_window_one": {"en": "sliding window of 1 token", "zh": "滑动窗口 1 个词元"},
    "batchwin.embeddings": {
        "en": "The layer gets `batch`, shape {shape}: the table stacked {batch:time|times}, as the "
        "book's `torch.stack((inputs, inputs))` does for 2. Every step runs on "
        "the {batch:copy|copies}; this page shows batch item 0, `batch[0]`.",
        "zh": "该层接收的是 `batch`，形状 {shape}：把表格堆叠 {batch} 次，就像书中 2 个副本时的 "
        "`torch.stack((inputs, inputs))`。每一步都在全部 {batch} 个副本上运行；本页显示第 0 个"
        "批次项 `batch[0]`。",
    },
    "batchwin.embeddings_one": {
        "en": "The layer gets a batch of one, `inputs.unsqueeze(0)`, shape {shape}; the book "
        "stacks two copies, `torch.stack((inputs, inputs))` (the sidebar's batch size).",
        "zh": "该层接收只有一个序列的批次 `inputs.unsqueeze(0)`，形状 {shape}；书中堆叠两个副本 "
        "`torch.stack((inputs, inputs))`（侧边栏中的批次大小）。",
    },
    "batchwin.shape": {
        "en": "`{name}` has shape {shape} (batch, …); shown: batch item 0.",
        "zh": "`{name}` 的形状为 {shape}（批次, …）；显示的是第 0 个批次项。",
    },
    "batchwin.mask_window": {
        "en": "Sliding window of {window:token|tokens}: the mask also hides every key {window} or more "
        "tokens back (coloured 1; the future stays grey), so query i sees only keys "
        "i − {before} … i. Keys each query sees, `(~mask).sum(-1)`: {counts}.",
        "zh": "滑动窗口为 {window} 个词元：掩码还会隐藏向前 {window} 个及更远的每个键（着色的 1；"
        "未来的词元仍为灰色），所以查询 i 只能看到键 i − {before} … i。"
        "每个查询能看到的键数 `(~mask).sum(-1)`：{counts}。",
    },
    "batchwin.mask_window_one": {
        "en": "Sliding window of 1 token: the mask also hides every earlier key (coloured 1; the "
        "future stays grey), so query i sees only key i, itself. Keys each query sees, "
        "`(~mask).sum(-1)`: {counts}.",
        "zh": "滑动窗口为 1 个词元：掩码还会隐藏每个更早的键（着色的 1；未来的词元仍为灰色），"
        "所以查询 i 只能看到键 i，即它自己。每个查询能看到的键数 `(~mask).sum(-1)`：{counts}。",
    },
    "batchwin.mask_legend": {
        "en": "1 grey = hidden (a future token) · 1 coloured = hidden (too far back, outside the "
        "window) · 0 = visible",
        "zh": "灰色的 1 = 隐藏（未来的词元）· 着色的 1 = 隐藏（太远，在窗口之外）· 0 = 可见",
    },
    "batchwin.masked": {
        "en": "With the sliding window of {window:token|tokens}, the keys {window} or more tokens back "
        "are −∞ too (grey): the formula's j > i becomes j > i or j ≤ i − {window}.",
        "zh": "使用 {window} 个词元的滑动窗口时，向前 {window} 个及更远的键也是 −∞（灰色）："
        "公式中的 j > i 变为 j > i 或 j ≤ i − {window}。",
    },
    "batchwin.mixes": {
        "en": "With the sliding window of {window:token|tokens}, row i mixes at most {window:token|tokens} "
        "(itself and the {before} before it): keys per row {counts}.",
        "zh": "使用 {window} 个词元的滑动窗口时，第 i 行最多混合 {window} 个词元"
        "（它自己和它前面的 {before} 个）：每行的键数 {counts}。",
    },
    "batchwin.mixes_one": {
        "en": "With a sliding window of 1 token, row i mixes only itself: keys per row {counts}.",
        "zh": "使用 1 个词元的滑动窗口时，第 i 行只混合它自己：每行的键数 {counts}。",
    },
    "batchwin.dropout_items": {
        "en": "Each batch item draws its own dropout mask, although the copies are identical: "
        "{differences}.",
        "zh": "尽管各副本完全相同，每个批次项都抽取自己的 dropout 掩码：{differences}。",
    },
    "batchwin.dropout_item": {
        "en": "item {item}'s mask differs from item 0's in {count} of the {visible} visible weights",
        "zh": "第 {item} 项的掩码与第 0 项在 {visible} 个可见权重中有 {count} 个不同",
    },
}
