"""The model tools and their adapters: the builtin files' ``memory`` tool (``memory``),
``memory_save`` / ``memory_recall`` over a vault (``vault``), and the ``state_card`` /
``task_board`` tools (``workspace``). Only these modules render JSON for the model.
"""
