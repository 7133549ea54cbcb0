"""The `catches` cases of the checks that hold documents to code (settings.py,
tables.py): plant one mistake in a copy of a text and expect the check to
report it, so that a check that stopped looking fails too."""


def run_catch(name, cases, texts, check):
    """Plants cases[name] = (which, key, plant) into texts[key] and runs
    check(which, texts); returns the exit code: 0 when something is reported."""
    which, key, plant = cases[name]
    planted = plant(texts[key])
    if planted == texts[key]:
        print(f"catches {name}: the planted change did not apply (text moved?)")
        return 1
    texts[key] = planted
    errors = check(which, texts)
    print("\n".join(errors) if errors else f"catches {name}: nothing reported")
    return 0 if errors else 1
