"""Messages of the Predict, then reveal (quiz) page."""

MESSAGES = {
    "quiz.intro": {
        "en": "Predict first, then check. Each question is about the current sentence and "
        "settings (one CausalAttention head); the answer is read from the same numbers the other "
        "pages show. Pick an answer, click **Reveal**, then go on with **Next question**.",
        "zh": "先预测，再核对。每道题都基于当前的句子和设置（单个 CausalAttention 头）；答案取自其他"
        "页面显示的同一组数值。选择一个答案，点击**揭晓**，然后点击**下一题**继续。",
    },
    "quiz.score": {"en": "Score", "zh": "得分"},
    "quiz.score_value": {"en": "{correct} / {answered}", "zh": "{correct} / {answered}"},
    "quiz.question_number": {"en": "Question {number}", "zh": "第 {number} 题"},
    "quiz.q.argmax": {
        "en": "Which token does the query “{query}” attend to most? (The largest attention weight "
        "in its row, before dropout; it can only see itself and earlier tokens.)",
        "zh": "查询“{query}”对哪个词元的注意力最大？（即它那一行中最大的注意力权重，dropout 之前；"
        "它只能看到自己和前面的词元。）",
    },
    "quiz.q.masked_after": {
        "en": "The key “{key_token}” (position {key_pos}) comes after the query “{query}” (position "
        "{query_pos}). What is the attention weight of this cell **after softmax**?",
        "zh": "键“{key_token}”（位置 {key_pos}）在查询“{query}”（位置 {query_pos}）之后。"
        "这个单元格**在 softmax 之后**的注意力权重是多少？",
    },
    "quiz.q.masked_before": {
        "en": "The key “{key_token}” (position {key_pos}) comes after the query “{query}” (position "
        "{query_pos}). What is this cell's score after masking, **just before softmax**?",
        "zh": "键“{key_token}”（位置 {key_pos}）在查询“{query}”（位置 {query_pos}）之后。"
        "这个单元格在掩码之后、**softmax 之前**的分数是多少？",
    },
    "quiz.q.row_sum": {
        "en": "Dropout is active (p = {p}). Does the row of the query “{query}” still sum to 1 "
        "**after dropout**?",
        "zh": "Dropout 正在生效（p = {p}）。查询“{query}”这一行在 **dropout 之后**的和还是 1 吗？",
    },
    "quiz.answer_label": {"en": "Your answer", "zh": "你的答案"},
    "quiz.option.token": {
        "en": "“{token}” (position {position})",
        "zh": "“{token}”（位置 {position}）",
    },
    "quiz.option.zero": {"en": "0", "zh": "0"},
    "quiz.option.minus_inf": {"en": "−∞", "zh": "−∞"},
    "quiz.option.one": {"en": "1", "zh": "1"},
    "quiz.option.raw_score": {
        "en": "its raw score q·k = {value}, unchanged",
        "zh": "它的原始分数 q·k = {value}，保持不变",
    },
    "quiz.option.yes": {"en": "Yes, exactly 1", "zh": "是，恰好为 1"},
    "quiz.option.no": {"en": "No", "zh": "不是"},
    "quiz.reveal": {"en": "Reveal", "zh": "揭晓"},
    "quiz.reveal_help": {"en": "Pick an answer first.", "zh": "请先选择一个答案。"},
    "quiz.next": {"en": "Next question", "zh": "下一题"},
    "quiz.right": {"en": "Right! The answer is {answer}.", "zh": "正确！答案是 {answer}。"},
    "quiz.wrong": {
        "en": "Not quite: you chose {chosen}; the answer is {answer}.",
        "zh": "不对：你选的是 {chosen}；正确答案是 {answer}。",
    },
    "quiz.no_answer": {
        "en": "No answer was given; the answer is {answer}.",
        "zh": "没有作答；正确答案是 {answer}。",
    },
    "quiz.or": {"en": " or ", "zh": " 或 "},
    "quiz.explain.argmax": {
        "en": "In the row of “{query}” in attn_weights the largest weight is {value}. The weights "
        "are softmax(q·kᵀ / √d_k) over the visible keys, so the key whose score q·k is largest "
        "always wins; later tokens are masked and get 0.",
        "zh": "在 attn_weights 中“{query}”这一行，最大的权重是 {value}。权重是对可见键的 "
        "softmax(q·kᵀ / √d_k)，所以分数 q·k 最大的键总是胜出；后面的词元被掩码，权重为 0。",
    },
    "quiz.explain.masked_after": {
        "en": "The causal mask hides future tokens: masked_fill writes −∞ into the score (its raw "
        "q·k was {value}), and exp(−∞) = 0, so softmax gives this cell exactly 0. The rest of the "
        "row shares the whole weight of 1.",
        "zh": "因果掩码隐藏未来的词元：masked_fill 把分数写成 −∞（它原始的 q·k 是 {value}），"
        "而 exp(−∞) = 0，所以 softmax 给这个单元格的权重恰好是 0。这一行的其余部分分享全部权重 1。",
    },
    "quiz.explain.masked_before": {
        "en": "Before softmax, masked_fill replaces the raw score q·k = {value} by −∞ for every key "
        "after the query (the mask is True there). Dividing −∞ by √d_k is still −∞; softmax then "
        "turns it into 0.",
        "zh": "在 softmax 之前，masked_fill 把查询之后每个键的原始分数 q·k（这里是 {value}）替换为 −∞"
        "（掩码在那里为 True）。−∞ 除以 √d_k 仍是 −∞；softmax 随后把它变成 0。",
    },
    "quiz.explain.row_sum": {
        "en": "After dropout this row sums to {value}: dropped weights become 0 and kept ones are "
        "multiplied by 1/(1 − p) = {scale}. A row sums to 1 only on average (see the Dropout in "
        "expectation page); in evaluation mode dropout does nothing and rows sum to 1 again.",
        "zh": "dropout 之后这一行的和是 {value}：被丢弃的权重变为 0，保留的权重乘以 1/(1 − p) = {scale}。"
        "每行只是在平均意义上和为 1（见“Dropout 的期望”页面）；在评估模式下 dropout 不起作用，"
        "每行的和又是 1。",
    },
    "quiz.row_title.weights": {
        "en": "attn_weights, row “{query}” (before dropout)",
        "zh": "attn_weights，“{query}”这一行（dropout 之前）",
    },
    "quiz.row_title.masked_scores": {
        "en": "masked_scores, row “{query}” (before softmax)",
        "zh": "masked_scores，“{query}”这一行（softmax 之前）",
    },
    "quiz.row_title.dropped": {
        "en": "dropped_weights, row “{query}” (after dropout)",
        "zh": "dropped_weights，“{query}”这一行（dropout 之后）",
    },
    "quiz.score_name": {"en": "score", "zh": "分数"},
    "quiz.few_tokens": {
        "en": "Questions are about the first {limit:token|tokens} of the sentence.",
        "zh": "题目只涉及句子的前 {limit} 个词元。",
    },
}
