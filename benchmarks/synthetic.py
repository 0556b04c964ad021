"""Synthetic memories for scale benchmarks: varied, plausible one-line statements.

Made from templates filled with random names, places, projects, items and
numbers (seeded, so every run makes the same texts).
"""

from __future__ import annotations

import random

NAMES = ["Alice", "Bob", "Priya", "Chen Wei", "Fatima", "Lars", "Mateo", "Yuki", "Olu", "Sofia", "Noah", "Amara"]
PLACES = ["Lisbon", "Osaka", "Nairobi", "Denver", "Utrecht", "Hanoi", "Quito", "Tallinn", "Perth", "Lyon"]
PROJECTS = ["Orion", "Falcon", "Atlas", "Juniper", "Nimbus", "Cobalt", "Zephyr", "Mosaic", "Beacon", "Tundra"]
ITEMS = ["laptop", "bike", "camera", "guitar", "espresso machine", "tent", "keyboard", "novel", "plant", "scarf"]
FOODS = ["ramen", "tacos", "falafel", "dumplings", "paella", "curry", "pho", "risotto", "bibimbap", "pierogi"]
TEMPLATES = [
    "I prefer {food} over pizza when we order in for the {project} team.",
    "{name} is moving to {place} in {month} to lead project {project}.",
    "The {project} deadline was pushed to {month} {day} because of the audit.",
    "I bought a new {item} for {amount} dollars at a shop in {place}.",
    "From now on, send the {project} status report to {name} every {weekday}.",
    "My flight to {place} leaves on {weekday} at {hour}:{minute:02d}.",
    "{name} recommended a {food} place near the station in {place}.",
    "The {project} build failed {count} times last week because of flaky tests.",
    "We agreed to review the {project} budget of {amount} dollars with {name} on {weekday}.",
    "My {item} broke again, so I am borrowing one from {name} until {month}.",
    "{name} and I ran {count} kilometres along the river in {place} on {weekday}.",
    "Remember that {name} is allergic to {food} when planning the {project} offsite.",
]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def synthetic_memories(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        template = rng.choice(TEMPLATES)
        out.append(template.format(
            name=rng.choice(NAMES), place=rng.choice(PLACES), project=rng.choice(PROJECTS), item=rng.choice(ITEMS),
            food=rng.choice(FOODS), month=rng.choice(MONTHS), weekday=rng.choice(WEEKDAYS),
            day=rng.randint(1, 28), hour=rng.randint(5, 22), minute=rng.randint(0, 59),
            amount=rng.randint(20, 5000), count=rng.randint(2, 40)))
    return out


QUERIES = [
    "When is the Orion deadline?", "Who is moving to Lisbon?", "What food does the team prefer?",
    "When does my flight leave?", "Who should get the Falcon status report?", "Why did the build fail?",
    "What did I buy in Osaka?", "Who is allergic to something?", "How far did we run?",
    "What is the Atlas budget?", "Where can I get good ramen?", "Whose keyboard am I borrowing?",
]
