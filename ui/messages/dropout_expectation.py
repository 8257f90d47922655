"""Messages of the Dropout in expectation page."""

MESSAGES = {
    "dropout_expectation.intro": {
        "en": "Dropout zeroes each attention weight with probability p and multiplies the kept "
        "ones by 1/(1 − p). One draw looks nothing like the original weights, but **on average** "
        "every weight is unchanged, because a kept-and-scaled mask has expectation 1:",
        "zh": "Dropout 以概率 p 把每个注意力权重置 0，并把保留下来的权重乘以 1/(1 − p)。"
        "单次抽样看起来和原来的权重很不一样，但**平均而言**每个权重保持不变，因为保留并缩放后的"
        "掩码的期望是 1：",
    },
    "dropout_expectation.after_formula": {
        "en": "So the average of N independent dropout draws converges to the weights without "
        "dropout. Below, N draws are averaged and compared with attn_weights (the weights before "
        "dropout).",
        "zh": "因此 N 次独立 dropout 抽样的平均值会收敛到没有 dropout 的权重。下面对 N 次抽样取平均，"
        "并与 attn_weights（dropout 之前的权重）比较。",
    },
    "dropout_expectation.using_sidebar": {
        "en": "Using the sidebar's dropout rate p = {p} (training mode).",
        "zh": "使用侧边栏的 dropout 比率 p = {p}（训练模式）。",
    },
    "dropout_expectation.nothing_to_average": {
        "en": "With the sidebar's settings dropout does nothing ({reason}): every draw would be "
        "the weights themselves, so there is nothing to average. Try a rate here instead "
        "(this slider only affects this page).",
        "zh": "按侧边栏的设置 dropout 不起作用（{reason}）：每次抽样都等于权重本身，没有什么可平均的。"
        "请在这里试一个比率（这个滑块只影响本页）。",
    },
    "dropout_expectation.reason_zero": {"en": "p = 0", "zh": "p = 0"},
    "dropout_expectation.reason_eval": {
        "en": "evaluation mode: module.eval()",
        "zh": "评估模式：module.eval()",
    },
    "dropout_expectation.page_p": {
        "en": "Dropout rate p (this page)",
        "zh": "Dropout 比率 p（本页）",
    },
    "dropout_expectation.n": {
        "en": "N draws in the averaged heatmap",
        "zh": "平均热力图使用的抽样次数 N",
    },
    "dropout_expectation.n_help": {
        "en": "The heatmap on the left averages the first N of the same draws the curve uses.",
        "zh": "左边的热力图对曲线所用的同一批抽样中的前 N 次取平均。",
    },
    "dropout_expectation.draws_note": {
        "en": "The draws come from a private random generator seeded with the sidebar seed "
        "({seed}): the same rule as nn.Dropout (keep with probability 1 − p, scale by 1/(1 − p)), "
        "reproducible, and the global torch RNG is untouched.",
        "zh": "抽样来自一个用侧边栏种子（{seed}）初始化的私有随机数生成器：规则与 nn.Dropout 相同"
        "（以概率 1 − p 保留，乘以 1/(1 − p)），可复现，且不影响全局 torch 随机数状态。",
    },
    "dropout_expectation.block_note": {
        "en": "The sentence has {total:token|tokens}; this page uses the first {used} (their weights "
        "only involve each other, thanks to the causal mask).",
        "zh": "句子有 {total} 个词元；本页只使用前 {used} 个（由于因果掩码，它们的权重只涉及彼此）。",
    },
    "dropout_expectation.curve_header": {
        "en": "Error of the average against N (log-log)",
        "zh": "平均值的误差随 N 的变化（双对数坐标）",
    },
    "dropout_expectation.rms": {"en": "RMS error", "zh": "均方根误差"},
    "dropout_expectation.max_abs": {"en": "largest |error|", "zh": "最大 |误差|"},
    "dropout_expectation.reference": {"en": "theory c/√N", "zh": "理论值 c/√N"},
    "dropout_expectation.marker": {"en": "N in the heatmap", "zh": "热力图中的 N"},
    "dropout_expectation.x_title": {
        "en": "N (number of dropout draws averaged)",
        "zh": "N（平均的 dropout 抽样次数）",
    },
    "dropout_expectation.y_title": {"en": "error vs attn_weights", "zh": "与 attn_weights 的误差"},
    "dropout_expectation.monte_carlo": {
        "en": "The error falls like 1/√N — the Monte Carlo rate: 100 times more draws buy 10 times "
        "less error. On log-log axes that is a straight line of slope −1/2; the dashed line is the "
        "theory, c = √(p/(1 − p) · mean w²), since one draw of a weight w has variance "
        "w² · p/(1 − p) and averaging N independent draws divides the variance by N.",
        "zh": "误差按 1/√N 下降——这是蒙特卡洛方法的速率：抽样次数多 100 倍，误差才小 10 倍。"
        "在双对数坐标中它是一条斜率为 −1/2 的直线；虚线是理论值 c = √(p/(1 − p) · mean w²)，"
        "因为权重 w 的单次抽样方差是 w² · p/(1 − p)，对 N 次独立抽样取平均会把方差除以 N。",
    },
    "dropout_expectation.slope": {"en": "fitted slope", "zh": "拟合斜率"},
    "dropout_expectation.slope_help": {
        "en": "Least-squares slope of log(RMS error) against log N; 1/√N gives −0.5.",
        "zh": "log(均方根误差) 对 log N 的最小二乘斜率；1/√N 对应 −0.5。",
    },
    "dropout_expectation.rms_at_n": {"en": "RMS error at N = {n}", "zh": "N = {n} 时的均方根误差"},
    "dropout_expectation.theory_at_n": {
        "en": "theory c/√N at N = {n}",
        "zh": "N = {n} 时的理论值 c/√N",
    },
    "dropout_expectation.heatmaps_header": {
        "en": "The average of N draws next to the true weights",
        "zh": "N 次抽样的平均值与真实权重并排对比",
    },
    "dropout_expectation.average_title": {
        "en": "average of N = {n} dropout draws",
        "zh": "N = {n} 次 dropout 抽样的平均值",
    },
    "dropout_expectation.true_title": {
        "en": "attn_weights (no dropout)",
        "zh": "attn_weights（无 dropout）",
    },
    "dropout_expectation.n_one_note": {
        "en": "N = 1 is a single dropout draw: dropped weights are 0 and kept ones are "
        "multiplied by 1/(1 − p) = {scale}, so a row no longer sums to 1.",
        "zh": "N = 1 就是单次 dropout 抽样：被丢弃的权重为 0，保留的权重乘以 1/(1 − p) = {scale}，"
        "所以每行之和不再是 1。",
    },
    "dropout_expectation.tab.curve": {"en": "Error against N", "zh": "误差随 N 的变化"},
    "dropout_expectation.tab.heatmaps": {
        "en": "Average of N draws and true weights",
        "zh": "N 次抽样的平均值与真实权重",
    },
}
