"""The catalog (SL5xx): budget (SL50x), selection (SL51x), discovery (SL52x) and evals (SL53x). Their
analyses: :mod:`skilllint.catalog`, :mod:`skilllint.discovery` and :mod:`skilllint.skill.evals`."""
