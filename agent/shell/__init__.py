"""Shell execution, in two independent layers, plus limits:

- policy.py (rules.py, parse.py, words.py, unwrap.py, gitcmds.py, options.py): layer 1, rules
  checked on every simple command of the parsed line, wrappers and nested command strings included;
- sandbox.py (+ landlock.py, launcher.py): layer 2, the OS sandbox (bubblewrap, else Landlock);
- runner.py (+ environment.py): limits, timeout that ends the whole process tree, bounded output;
- project.py: manifests, for get_project_info / install_dependencies.

The tools are in agent/tools/shell.py and agent/tools/project.py. Kept import-light: launcher.py
runs as its own process for every command.
"""
