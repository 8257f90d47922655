"""Messages of the Why √d_k page."""

MESSAGES = {
    "why_sqrt_dk.intro": {
        "en": "CausalAttention divides the scores by √d_k before softmax (d_k = keys.shape[-1]). "
        "Why? If the entries of a query and a key are independent with mean 0 and variance 1, "
        "their dot product is a sum of d_k such products, so its variance is d_k:",
        "zh": "CausalAttention 在 softmax 之前把注意力分数除以 √d_k（d_k = keys.shape[-1]）。"
        "为什么？如果查询和键的各分量相互独立、均值为 0、方差为 1，它们的点积是 d_k 个这样的乘积之和，"
        "所以方差是 d_k：",
    },
    "why_sqrt_dk.explain": {
        "en": "Large scores make softmax nearly one-hot: one key takes almost all the weight. "
        "Then the softmax barely moves when the scores move (its gradient is tiny), and the layer "
        "learns slowly. Dividing by √d_k keeps the score variance ≈ 1 whatever d_k is, so the "
        "weights stay spread out. Turn the scaling off and raise d_k to watch softmax saturate.",
        "zh": "分数很大时，softmax 几乎是 one-hot：一个键拿走几乎全部权重。此时分数变化时 softmax "
        "几乎不动（梯度极小），这一层学得很慢。除以 √d_k 能让分数的方差无论 d_k 多大都保持约为 1，"
        "权重因此保持分散。关闭缩放并增大 d_k，观察 softmax 如何饱和。",
    },
    "why_sqrt_dk.scaled": {"en": "Divide by √d_k", "zh": "除以 √d_k"},
    "why_sqrt_dk.scaled_help": {
        "en": "On: softmax(q·kᵀ / √d_k), as CausalAttention does. Off: softmax(q·kᵀ).",
        "zh": "开：softmax(q·kᵀ / √d_k)，与 CausalAttention 相同。关：softmax(q·kᵀ)。",
    },
    "why_sqrt_dk.d_k": {"en": "d_k (width of queries and keys)", "zh": "d_k（查询和键的维度）"},
    "why_sqrt_dk.setup": {
        "en": "The experiment: {queries} random queries and {keys} random keys with N(0, 1) "
        "entries (a private generator seeded with the sidebar seed, {seed}). No causal mask here: "
        "every query sees all {keys:key|keys}, so a perfectly spread row has entropy ln {keys} = "
        "{uniform}.",
        "zh": "实验：{queries} 个随机查询和 {keys} 个随机键，各分量服从 N(0, 1)（私有随机数生成器，"
        "用侧边栏种子 {seed} 初始化）。这里不使用因果掩码：每个查询都能看到全部 {keys} 个键，"
        "所以完全均匀的一行的熵是 ln {keys} = {uniform}。",
    },
    "why_sqrt_dk.row_header": {"en": "One example row", "zh": "一个示例行"},
    "why_sqrt_dk.row_title_scaled": {
        "en": "softmax(q·kᵀ / √d_k), d_k = {d_k}",
        "zh": "softmax(q·kᵀ / √d_k)，d_k = {d_k}",
    },
    "why_sqrt_dk.row_title_unscaled": {
        "en": "softmax(q·kᵀ), d_k = {d_k} (no scaling)",
        "zh": "softmax(q·kᵀ)，d_k = {d_k}（不缩放）",
    },
    "why_sqrt_dk.score_std": {
        "en": "score spread (std of this row)",
        "zh": "分数离散度（本行标准差）",
    },
    "why_sqrt_dk.entropy": {"en": "entropy of this row", "zh": "本行的熵"},
    "why_sqrt_dk.max_weight": {"en": "largest weight", "zh": "最大权重"},
    "why_sqrt_dk.entropy_help": {
        "en": "−Σ w·ln w: ln {keys} = {uniform} when all weights are equal, 0 when one weight is 1.",
        "zh": "−Σ w·ln w：所有权重相等时为 ln {keys} = {uniform}，某个权重为 1 时为 0。",
    },
    "why_sqrt_dk.curves_header": {
        "en": "Averages over all queries, against d_k",
        "zh": "对所有查询取平均，随 d_k 的变化",
    },
    "why_sqrt_dk.panel_entropy": {"en": "mean entropy of a row", "zh": "每行的平均熵"},
    "why_sqrt_dk.panel_max": {"en": "mean largest weight", "zh": "平均最大权重"},
    "why_sqrt_dk.panel_gradient": {"en": "size of softmax's gradient", "zh": "softmax 梯度的大小"},
    "why_sqrt_dk.with_scaling": {"en": "÷ √d_k", "zh": "÷ √d_k"},
    "why_sqrt_dk.without_scaling": {"en": "no scaling", "zh": "不缩放"},
    "why_sqrt_dk.uniform": {"en": "uniform row (ln T)", "zh": "均匀行（ln T）"},
    "why_sqrt_dk.x_title": {"en": "d_k", "zh": "d_k"},
    "why_sqrt_dk.curves_caption": {
        "en": "Without scaling (dashed) the entropy falls towards 0 and the largest weight rises "
        "towards 1 as d_k grows: softmax saturates, and the size of its gradient "
        "‖diag(w) − w wᵀ‖ shrinks towards 0. With ÷ √d_k (solid) all three stay flat.",
        "zh": "不缩放时（虚线），随着 d_k 增大，熵趋向 0，最大权重趋向 1：softmax 饱和，"
        "其梯度的大小 ‖diag(w) − w wᵀ‖ 也趋向 0。除以 √d_k 时（实线），三者都保持平稳。",
    },
    "why_sqrt_dk.trace_header": {"en": "Your trace's own numbers", "zh": "你当前计算中的数值"},
    "why_sqrt_dk.trace_d_k": {"en": "d_k of the trace", "zh": "当前 d_k"},
    "why_sqrt_dk.raw_variance": {"en": "variance of raw scores q·k", "zh": "原始分数 q·k 的方差"},
    "why_sqrt_dk.scaled_variance": {
        "en": "variance of scaled scores q·k/√d_k",
        "zh": "缩放后分数 q·k/√d_k 的方差",
    },
    "why_sqrt_dk.trace_caption": {
        "en": "Over the unmasked cells of attn_scores and scaled_scores (one head, the sidebar's "
        "settings). Dividing every score by √d_k = {scale} divides the variance by d_k = {d_k} "
        "exactly. The raw variance itself depends on your embeddings and the layer's random "
        "starting weights (small ones in nn.Linear), so it is often well below d_k here; with "
        "wide vectors and trained weights the scores can get large, which is what the scaling "
        "guards against.",
        "zh": "统计 attn_scores 和 scaled_scores 中未被掩码的单元格（单头，侧边栏设置）。"
        "把每个分数除以 √d_k = {scale}，方差恰好除以 d_k = {d_k}。"
        "原始方差本身取决于你的嵌入向量和层的随机初始权重（nn.Linear 的初始权重很小），"
        "所以这里常常远小于 d_k；当向量很宽、权重经过训练后，分数可能变得很大，缩放防的正是这种情况。",
    },
    "why_sqrt_dk.tab.row": {"en": "One query's weights", "zh": "一个查询的权重"},
    "why_sqrt_dk.tab.curves": {"en": "Against d_k", "zh": "随 d_k 的变化"},
}
