"""A skill's eval files (SL53x): trigger sets and task evals in the formats skill-creator writes,
read with the position of each problem in the JSON text."""
