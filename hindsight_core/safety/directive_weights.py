"""Fitted weights of the directive detector (`directives`); written by benchmarks/train_directives.py.

Trained on 317 attack and 3479 benign agent/tool texts; five-fold cross-validation
flagged 31.9% of attacks and 0.26% of benign texts. Regenerate, do not edit.
"""

BIAS = -0.3450
THRESHOLD = 0.5790
WEIGHTS: dict[str, float] = {
    'standing_act': 0.8825,
    'trigger_act': 0.5829,
    'addressee_act': 0.4321,
    'resource_order': 0.4224,
    'standing_resource': 0.6768,
    'resource_change': 0.4111,
    'passive_rule': 0.3615,
    'passive_resource': 0.1620,
    'pressure': 0.3375,
    'credential_act': 0.1196,
    'imperative_resource': 0.0968,
    'user_data_out': 0.4295,
    'relay': 0.5948,
    'relay_resource': 0.2903,
    'relay_rule': 0.2789,
    'standing': -0.6782,
    'addressee': 1.2264,
    'resource': 0.3377,
    'reported': -0.1959,
    'narrative_rule': -0.2908,
    'question_rule': 0.0000,
}
