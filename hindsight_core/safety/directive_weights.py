"""Fitted weights of the directive detector (`directives`); written by benchmarks/train_directives.py.

Trained on 281 attack and 3454 benign agent/tool texts; five-fold cross-validation
flagged 23.8% of attacks and 0.20% of benign texts. Regenerate, do not edit.
"""

BIAS = -0.2416
THRESHOLD = 0.6137
WEIGHTS: dict[str, float] = {
    'standing_act': 1.1841,
    'trigger_act': 0.4351,
    'addressee_act': 0.3952,
    'resource_order': 0.3328,
    'standing_resource': 0.3421,
    'resource_change': 0.3120,
    'passive_rule': 0.2630,
    'passive_resource': 0.1143,
    'pressure': 0.3307,
    'credential_act': 0.0918,
    'imperative_resource': 0.1230,
    'user_data_out': 0.3969,
    'relay': 0.5214,
    'relay_resource': 0.2444,
    'relay_rule': 0.1839,
    'standing': -0.4795,
    'addressee': 1.1416,
    'resource': 0.1943,
    'reported': -0.3908,
    'narrative_rule': -0.3871,
    'question_rule': 0.0000,
}
