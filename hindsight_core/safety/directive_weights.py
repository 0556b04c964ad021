"""Fitted weights of the directive detector (`directives`); written by benchmarks/train_directives.py.

Trained on 192 attack and 3479 benign agent/tool texts; five-fold cross-validation
flagged 33.3% of attacks and 0.14% of benign texts. Regenerate, do not edit.
"""

BIAS = -0.4443
THRESHOLD = 0.7388
WEIGHTS: dict[str, float] = {
    'standing_act': 1.0543,
    'trigger_act': 0.7219,
    'addressee_act': 0.3958,
    'resource_order': 0.5418,
    'standing_resource': 0.8433,
    'resource_change': 0.5297,
    'passive_rule': 0.4643,
    'passive_resource': 0.2309,
    'pressure': 0.4251,
    'credential_act': 0.1475,
    'imperative_resource': 0.2401,
    'user_data_out': 0.7140,
    'relay': 0.8254,
    'relay_resource': 0.3608,
    'relay_rule': 0.2712,
    'standing': -0.3483,
    'addressee': 0.9573,
    'resource': -0.0652,
    'reported': 0.0104,
    'narrative_rule': -0.2921,
    'question_rule': 0.0000,
}
