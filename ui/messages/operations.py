"""Messages of the server's operation: the reference a settings error carries for the operator."""

MESSAGES = {
    "ops.reference": {
        "en": "Reference `{ref}`: tell it to your teacher if you need help with this message.",
        "zh": "编号 `{ref}`：如果需要帮助，请把它告诉老师。",
    }
}
