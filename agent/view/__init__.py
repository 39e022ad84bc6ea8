"""The local web view (`codeagent view`): runs, their steps and edits, the edit journal with undo,
and rename comparisons, served by uvicorn as a small Starlette app with Jinja2 templates.

command.py registers the command (light: no web import); launch.py builds the tool context and
calls server.py (bind, token, uvicorn) → app.py (routes behind security.py's guard) → routes.py
→ state.py (templates, shared state) and the data modules: runs.py (trajectory → timeline),
operations.py (journal entries, undo), diffs.py (unified diff → highlighted rows), chart.py
(inline SVG), compare.py (rename plan beside text replacement), live.py (SSE tail).

May import: agent's public readers and seams (trajectory, journal, workspace, registry,
toolcontext, commit.unified_diff, result.content_hash, refactor.compare) and, in launch.py only,
the entry points' bootstrap and commands.context/output. Nothing below the view imports it; it writes only through `Workspace.undo_many`.
"""
