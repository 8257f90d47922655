"""Page titles (shown in the navigation)."""

MESSAGES = {
    "page.step.title": {"en": "Attention, step by step", "zh": "注意力，一步一步"},
    "page.embeddings.title": {"en": "Embeddings", "zh": "嵌入向量"},
    "page.one_query.title": {"en": "One query, by hand", "zh": "手算一个查询"},
    "page.masking.title": {"en": "Masking two ways", "zh": "两种掩码方法"},
    "page.multi_head.title": {"en": "Multi-head", "zh": "多头注意力"},
    "page.backward.title": {"en": "Backward pass", "zh": "反向传播"},
    "page.compare.title": {"en": "Compare A/B", "zh": "A/B 对比"},
    "page.dropout_expectation.title": {"en": "Dropout in expectation", "zh": "Dropout 的期望"},
    "page.why_sqrt_dk.title": {"en": "Why √d_k?", "zh": "为什么除以 √d_k？"},
    "page.quiz.title": {"en": "Predict, then reveal", "zh": "先预测，再揭晓"},
    "page.train.title": {"en": "Train it", "zh": "动手训练"},
    "page.export.title": {"en": "Export and reproduce", "zh": "导出与复现"},
    "page.reproducibility.title": {"en": "Reproducibility", "zh": "可复现性"},
    "nav.share": {"en": "Share", "zh": "分享"},
}
