"""Class mode: the teacher's class button, the students' badge (ui/class_mode.py)."""

MESSAGES = {
    "class.start": {"en": "Start a class", "zh": "开始上课"},
    "class.start_short": {"en": "Class", "zh": "上课"},
    "class.running_short": {"en": "{room} · {count}", "zh": "{room} · {count}"},
    "class.start_help": {
        "en": "Students who open the class link (or scan its QR code) see this page, step and "
        "settings on their own screens, and follow each change you make. Their language stays "
        "their own.",
        "zh": "学生打开课堂链接（或扫描二维码）后，会在自己的屏幕上看到这一页、这一步和这些设置，"
        "并跟随你的每次更改。他们的语言保持不变。",
    },
    "class.running": {
        "en": "Class {room} · {count} following",
        "zh": "课堂 {room} · {count} 人跟随",
    },
    "class.link_intro": {
        "en": "Students open this link or scan the code:",
        "zh": "学生打开此链接或扫描二维码：",
    },
    "class.end": {"en": "End the class", "zh": "结束课堂"},
    "class.start_paused": {
        "en": "The class store cannot be reached right now; try again in a moment.",
        "zh": "暂时无法连接课堂存储，请稍后再试。",
    },
    "class.rooms_full": {
        "en": "This server already has as many classes as it allows (ATTENTION_LAB_CLASS_ROOMS).",
        "zh": "服务器上的课堂数量已达上限（ATTENTION_LAB_CLASS_ROOMS）。",
    },
    "class.paused_teacher": {
        "en": "The class link is paused (the class store cannot be reached): your students keep "
        "their current screen. It resumes by itself.",
        "zh": "课堂链接已暂停（无法连接课堂存储）：学生停留在当前画面。连接恢复后会自动继续。",
    },
    "class.too_long_teacher": {
        "en": "This view is too long to share with the class (its link is over "
        "16,000 characters): your students keep the last one.",
        "zh": "当前视图太长，无法与课堂共享（链接超过 16,000 个字符）：学生停留在上一个画面。",
    },
    "class.paused": {
        "en": "The class link is paused: this page keeps working on its own settings and follows "
        "the class again by itself.",
        "zh": "课堂链接已暂停：本页继续使用自己的设置，恢复后会自动重新跟随课堂。",
    },
    "class.missing": {
        "en": "Class {room} has ended or is not open (yet).",
        "zh": "课堂 {room} 已结束或尚未开始。",
    },
    "class.full": {
        "en": "Class {room} already has as many followers as it allows.",
        "zh": "课堂 {room} 的跟随人数已达上限。",
    },
    "class.leave": {"en": "Leave the class", "zh": "离开课堂"},
    "class.following": {
        "en": "Following class {room}: your screen shows the teacher's.",
        "zh": "正在跟随课堂 {room}：你的屏幕显示老师的画面。",
    },
    "class.explore": {"en": "Explore on my own", "zh": "自己探索"},
    "class.exploring": {
        "en": "Exploring on your own. Class {room} is at: {where}.",
        "zh": "你正在自己探索。课堂 {room} 现在在：{where}。",
    },
    "class.where_step": {"en": "{page}, step {step}", "zh": "{page}，步骤 {step}"},
    "class.back": {"en": "Back to the class", "zh": "回到课堂"},
    "class.bad_id": {
        "en": "Link: “class={value}” is not a class id (6 letters and digits); it was ignored.",
        "zh": "链接：“class={value}”不是课堂编号（6 个字母和数字），已忽略。",
    },
}
