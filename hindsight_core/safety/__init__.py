"""Safety: the write audit (rules, normalisation, scoring), split so each part reads in one sitting.

`hindsight_core.safety.audit` is the public face; import from there.
"""
