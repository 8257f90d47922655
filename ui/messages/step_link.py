"""Messages of the step in the link (``?step=``) and presenter mode (``?present=1``)."""

MESSAGES = {
    "url.bad_step": {
        "en": "Link: “step={value}” is not a step; the steps are {steps}. The first step is "
        "shown instead.",
        "zh": "链接：“step={value}”不是一个步骤；步骤名称为 {steps}。已改为显示第一步。",
    },
    "present.enter": {"en": "Presenter mode", "zh": "演示模式"},
    "present.enter_help": {
        "en": "One step per screen for a projector: no sidebar, larger text, Previous/Next and "
        "the ← → keys (Esc leaves). The link gets present=1, so it opens the same way.",
        "zh": "适合投影的一屏一步：没有侧边栏，文字更大，用“上一步/下一步”或 ← → 键切换"
        "（Esc 退出）。链接会带上 present=1，打开时也是同样的视图。",
    },
    "present.previous": {"en": "Previous", "zh": "上一步"},
    "present.next": {"en": "Next", "zh": "下一步"},
    "present.count": {
        "en": "Step **{number}** of {total}",
        "zh": "第 **{number}** 步，共 {total} 步",
    },
    "present.leave": {"en": "Leave presenter mode", "zh": "退出演示模式"},
    "present.leave_help": {
        "en": "Back to the full page with the sidebar (Esc does the same).",
        "zh": "回到带侧边栏的完整页面（按 Esc 也可以）。",
    },
    "step.change.mark": {"en": "●", "zh": "●"},
    "step.change.edit": {
        "en": "**What your edit changed:** the embedding of “{token}” (token {number}) moved the "
        "rows marked ● — {rows}. The rows above it cannot change: in causal attention a token "
        "only sees itself and the tokens before it, so nothing after it reaches them.",
        "zh": "**这次编辑改变了什么：**“{token}”（第 {number} 个词元）的嵌入向量改变了标 ● 的行——"
        "{rows}。它上面的行不会变：在因果注意力中，一个词元只看得到它自己和它之前的词元，"
        "它后面的任何东西都到不了它们。",
    },
    "step.change.setting": {
        "en": "**What the last change did:** a setting changed, and {count} of {tokens} rows moved "
        "(marked ●): {rows}. A setting acts on every token, so any row can change.",
        "zh": "**上一次改动的结果**：一个设置改变了，{tokens} 行中有 {count} 行改变（标 ●）：{rows}。"
        "设置作用于每个词元，所以每一行都可能改变。",
    },
    "step.change.none": {
        "en": "**What the last change did:** no context vector changed.",
        "zh": "**上一次改动的结果**：没有任何上下文向量改变。",
    },
    "sidebar.dropout_presets": {
        "en": "Or pick one: off, a usual rate, the book's example",
        "zh": "或直接选择：关闭、常用值、书中的例子",
    },
    "train.maps.untrained": {
        "en": "Before training (the seed's initial weights)",
        "zh": "训练之前（种子给出的初始权重）",
    },
    "train.maps.trained": {"en": "After training", "zh": "训练之后"},
    "train.maps.compare": {
        "en": "Left, the same model before its first step: its weights are random, so each row "
        "spreads its attention over the earlier tokens with no pattern. Right, after training: "
        "the pattern the task needs.",
        "zh": "左边是同一个模型在第一步训练之前：权重是随机的，所以每一行把注意力分散在前面的词元上，"
        "没有规律。右边是训练之后：出现了任务所需的模式。",
    },
    "train.maps.repeated": {
        "en": "A label such as “6·2” is the second “6” of the sequence: a token that appears "
        "more than once gets ·2, ·3 … to tell its places apart.",
        "zh": "像“6·2”这样的标签表示序列中的第二个“6”：重复出现的词元加上 ·2、·3 … 来区分位置。",
    },
}
