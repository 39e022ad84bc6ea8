"""`codeagent eval`: run a suite of coding tasks once per toolset (and per repeat) with the same
model, prompt and limits, judge each run, and report per task and per toolset.

Modules, one concern each (dependencies point down this list):
- suite: the task folders (task.toml, the starting tree, the judge spec) and `--list`;
- setup: a fresh copy of a task's project for one run (and generated large trees);
- judge: a task's test command run in the sandbox plus its exact expected/forbidden changes;
- metrics: what a run cost, read from its trajectory (calls, tokens, bytes read, time);
- unit: one (task, toolset, repeat) run end to end, returning its report entry;
- worker: the process entry point that runs one unit (`--jobs N` runs N of them at once);
- schedule: local scheduling (in-process or N processes), Ctrl+C, results kept per unit for --resume;
- rayrun: the same units scheduled on a Ray cluster (`pip install codeagent[ray]`);
- report: the tables (per task and toolset, paired semantic - text difference with a CI),
  report.json and report.md.
The bundled suite lives in agent/eval/suite/ (package data; its README says how to add tasks).
"""
