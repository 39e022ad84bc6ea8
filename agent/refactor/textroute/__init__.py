"""The text-only route of the refactoring suite: what an agent with grep, sed and an editor does
(the `text` method of the ops benchmark), computed without writing, so `--compare` can set it
beside the semantic plan. Pure functions over {workspace-relative path: text}:

    blocks.py     a top-level definition's lines by indentation (Python) or brace counting (TS/JS),
                  with its decorators and the comments directly above
    routes.py     delete (remove the block) and move (cut/paste the block with the source's import
                  lines it needs, rewrite single-line imports, `export *` beside `export *`)
    signature.py  replace the def's parameter list, rewrite `NAME(` / `.NAME(` calls by splitting
                  their arguments on top-level commas
    diff.py       a unified diff applied to texts, and two routes' results compared by hunk
    report.py     the one impure part: read the workspace, run a route, compare, format
"""
