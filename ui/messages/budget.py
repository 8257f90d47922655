"""Messages of the server's memory budget (``ui/budget.py``, ``ui/heavy.py``)."""

MESSAGES = {
    "budget.computing": {
        "en": "Computing a large view (about {needed:,} MB of memory) …",
        "zh": "正在计算一个大视图（约 {needed:,} MB 内存）……",
    },
    "budget.waiting": {
        "en": "Waiting for memory: this view needs about {needed:,} MB, and other students' large "
        "views hold {in_use:,} MB of the server's {total:,} MB. Waited {waited} s of at most "
        "{wait} s.",
        "zh": "正在等待内存：这个视图约需 {needed:,} MB，而其他同学的大视图占用了服务器 "
        "{total:,} MB 中的 {in_use:,} MB。已等待 {waited} 秒，最多等待 {wait} 秒。",
    },
    "budget.too_large": {
        "en": "This view is not computed: it needs about {needed:,} MB of memory, more than the "
        "server lets all large views hold together ({total:,} MB, set by the operator with "
        "ATTENTION_LAB_MEMORY_BUDGET_MB). Use fewer tokens, a smaller batch or fewer heads.",
        "zh": "这个视图没有计算：它约需 {needed:,} MB 内存，超过了服务器允许所有大视图合计占用的"
        "上限（{total:,} MB，由管理员通过 ATTENTION_LAB_MEMORY_BUDGET_MB 设置）。"
        "请减少 token、batch 或头的数量。",
    },
    "budget.busy": {
        "en": "This view is not computed: it needs about {needed:,} MB of memory, and for "
        "{waited} s other students' large views held too much of the server's {total:,} MB. "
        "Try again in a minute (rerun with R), or use fewer tokens or a smaller batch.",
        "zh": "这个视图没有计算：它约需 {needed:,} MB 内存，而在 {waited} 秒内，其他同学的大视图"
        "一直占用着服务器 {total:,} MB 中的太多内存。请一分钟后重试（按 R 重新运行），"
        "或减少 token 或 batch 的数量。",
    },
    "budget.out_of_memory": {
        "en": "The server ran out of memory for this view. Nothing else was changed; use fewer "
        "tokens, a smaller batch or fewer heads, or try again when fewer large views are open.",
        "zh": "服务器在计算这个视图时内存不足。其他内容没有改变；请减少 token、batch 或头的数量，"
        "或在打开的大视图较少时重试。",
    },
}
