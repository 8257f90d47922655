"""Messages of the step in the link (``?step=``) and presenter mode (``?present=1``)."""

MESSAGES = {
    "url.bad_step": {
        "en": "Link: “step={value}” is not a step of this page; its steps are {steps}. The first "
        "step is shown instead.",
        "zh": "链接：“step={value}”不是本页的步骤；本页的步骤名称为 {steps}。已改为显示第一步。",
    },
    "walk.all_toggle": {"en": "Show every step on one page", "zh": "在一个页面中显示全部步骤"},
    "walk.strip_label": {"en": "Steps", "zh": "步骤"},
    "walk.all_toggle_help": {
        "en": "Off: one step at a time (← → walk them). On: every step one below the other, for "
        "reading through or printing.",
        "zh": "关闭：一次显示一步（用 ← → 切换）。打开：所有步骤上下排列，便于通读或打印。",
    },
    "present.first_help": {"en": "The first screen (Home)", "zh": "第一屏（Home 键）"},
    "present.previous_help": {
        "en": "The previous screen (←, PageUp or Shift+Space)",
        "zh": "上一屏（←、PageUp 或 Shift+空格）",
    },
    "present.next_help": {
        "en": "The next screen (→, PageDown or Space)",
        "zh": "下一屏（→、PageDown 或空格）",
    },
    "present.last_help": {"en": "The last screen (End)", "zh": "最后一屏（End 键）"},
    "present.seed_help": {
        "en": "The seed that draws the weights (and dropout's mask): type it, or − / +",
        "zh": "生成权重（以及 dropout 掩码）的种子：直接输入，或按 − / +",
    },
    "present.language_help": {
        "en": "Switch the language; the screen stays the same",
        "zh": "切换语言；停留在同一屏",
    },
    "present.ignores.dropout_train": {
        "en": "Dropout p and train / eval do not change this page: it computes without dropout.",
        "zh": "dropout 比率 p 和训练/评估不会改变本页：本页的计算不含 dropout。",
    },
    "present.fix": {"en": "Set {setting} = {value}", "zh": "改为 {setting} = {value}"},
    "present.dropout": {"en": "Dropout p = {p}", "zh": "dropout 比率 p = {p}"},
    "present.train": {"en": "train", "zh": "训练"},
    "present.eval": {"en": "eval", "zh": "评估"},
    "present.enter": {"en": "Presenter mode", "zh": "演示模式"},
    "present.enter_help": {
        "en": "One step per screen for a projector: no sidebar, larger numbers, Previous/Next, "
        "the ← → keys and a clicker (Esc leaves). The link gets present=1, so it opens the same way.",
        "zh": "适合投影的一屏一步：没有侧边栏，文字更大，用“上一步/下一步”或 ← → 键切换"
        "（Esc 退出）。链接会带上 present=1，打开时也是同样的视图。",
    },
    "present.previous": {"en": "Previous", "zh": "上一步"},
    "present.next": {"en": "Next", "zh": "下一步"},
    "present.count": {
        "en": "Screen **{number}** of {total} · {title}",
        "zh": "第 **{number}** 屏，共 {total} 屏 · {title}",
    },
    "lecture.bad_page": {
        "en": "Lecture: “{value}” names no page that can be presented; the pages are {pages}. "
        "It is left out.",
        "zh": "讲稿：“{value}”不是可以演示的页面；可用的页面为 {pages}。已略去这一项。",
    },
    "lecture.bad_step": {
        "en": "Lecture: “{value}” is not a screen of that page; its screens are {steps}. It is "
        "left out.",
        "zh": "讲稿：“{value}”不是该页面的一屏；该页面的各屏为 {steps}。已略去这一项。",
    },
    "lecture.title": {"en": "Lecture: screens of several pages", "zh": "讲稿：多个页面的若干屏"},
    "lecture.help": {
        "en": "Pick screens from several pages into one deck: open a screen (a step of a page) "
        "and press Add, or type one per line as page.step. The link below (and the address bar) "
        "replays it; the file keeps it.",
        "zh": "把多个页面的若干屏组成一套演示：打开一屏（页面的一个步骤）后按“加入”，或每行写一项 "
        "page.step。下面的链接（以及地址栏）可以重放它；文件可以保存它。",
    },
    "lecture.add": {"en": "Add this screen", "zh": "加入这一屏"},
    "lecture.clear": {"en": "Clear", "zh": "清空"},
    "lecture.items": {"en": "Screens, one a line", "zh": "各屏，每行一项"},
    "lecture.start": {"en": "Present the lecture ({count})", "zh": "演示讲稿（{count} 项）"},
    "lecture.download": {"en": "Download lecture.txt", "zh": "下载 lecture.txt"},
    "lecture.upload": {"en": "Open a lecture file", "zh": "打开讲稿文件"},
    "lecture.no_steps": {
        "en": "none (name the page alone: it is one screen)",
        "zh": "无（只写页面名称：整页为一屏）",
    },
    "lecture.too_long": {
        "en": "Lecture: {count:screen|screens}; the first {limit} are kept.",
        "zh": "讲稿：共 {count} 屏；只保留前 {limit} 屏。",
    },
    "present.leave": {"en": "Leave (Esc)", "zh": "退出（Esc）"},
    "present.leave_help": {
        "en": "Back to the full page with the sidebar (Esc does the same).",
        "zh": "回到带侧边栏的完整页面（按 Esc 也可以）。",
    },
    # presenter mode: the same sentences, pointing at what its screen shows (the control strip)
    "present.step.embeddings.body": {
        "en": "Attention never sees words, only numbers: each row is one token's embedding vector, "
        "here {tokens:token|tokens} with d_in = {d_in:value|values} each. Every step that follows is computed "
        "from this table.",
        "zh": "注意力从来看不到词，只看到数字：每一行是一个词元的嵌入向量，这里共有 {tokens} 个词元，"
        "每个有 d_in = {d_in} 个数值。后面的每一步都由这张表算出。",
    },
    "present.step.weights.body": {
        "en": "Three trainable matrices turn every embedding into a query, a key and a value. "
        "They start out random: `torch.manual_seed({seed})` before the layer is built fixes them, "
        "so the same seed always gives the same weights (press − or + beside the seed above to "
        "draw others). Rows are the input features x1…, columns the d_out = {d_out} output "
        "features.",
        "zh": "三个可训练的矩阵把每个嵌入向量变成查询、键和值。它们的初始值是随机的："
        "构建该层之前调用 `torch.manual_seed({seed})` 就固定了它们，所以同一个种子总是得到同样的权重"
        "（按上方种子旁的 − 或 + 即可抽取别的权重）。行是输入特征 x1…，列是 d_out = {d_out} 个输出特征。",
    },
    "step.dropout.inactive_eval_present": {
        "en": "Dropout does nothing here: the layer is in eval mode (`module.eval()`). As in "
        "PyTorch, dropout acts only in training mode with p > 0, so dropped_weights = "
        "attn_weights and every row still sums to 1. Press “train” above to see it act.",
        "zh": "这里 dropout 不起作用：该层处于评估模式（`module.eval()`）。与 PyTorch 一样，"
        "dropout 只在训练模式且 p > 0 时生效，所以 dropped_weights = attn_weights，"
        "每一行之和仍然是 1。按上方的“训练”即可看到它的作用。",
    },
    "step.dropout.inactive_p0_present": {
        "en": "Dropout does nothing here: p = 0. As in PyTorch, dropout acts only in training "
        "mode with p > 0, so dropped_weights = attn_weights and every row still sums to 1. Press "
        "0.5 beside “p =” above to see it act.",
        "zh": "这里 dropout 不起作用：p = 0。与 PyTorch 一样，dropout 只在训练模式且 p > 0 时生效，"
        "所以 dropped_weights = attn_weights，每一行之和仍然是 1。按上方“p =”旁的 0.5 即可看到它的作用。",
    },
    "step.change.mark": {"en": "●", "zh": "●"},
    "step.change.edit": {
        "en": "**What your edit changed:** the embedding of “{token}” (token {number}) moved the "
        "rows marked ● — {rows}. The rows above it cannot change: in causal attention a token "
        "only sees itself and the tokens before it, so nothing after it reaches them.",
        "zh": "**这次编辑改变了什么**：“{token}”（第 {number} 个词元）的嵌入向量改变了标 ● 的行——"
        "{rows}。它上面的行不会变：在因果注意力中，一个词元只看得到它自己和它之前的词元，"
        "它后面的任何东西都到不了它们。",
    },
    "step.change.setting": {
        "en": "**What the last change did:** a setting changed, and {count} of {tokens:row|rows} moved "
        "(marked ●): {rows}. A setting acts on every token, so any row can change.",
        "zh": "**上一次改动的结果**：一个设置改变了，{tokens} 行中有 {count} 行改变（标 ●）：{rows}。"
        "设置作用于每个词元，所以每一行都可能改变。",
    },
    "step.change.none": {
        "en": "**What the last change did:** no context vector changed.",
        "zh": "**上一次改动的结果**：没有任何上下文向量改变。",
    },
    "sidebar.dropout_presets": {
        "en": "Or pick one: off, a usual rate, the book's rate",
        "zh": "或直接选择：关闭、常用值、书中的比率",
    },
}
