"""Tool modules (TOOL_MODULES); importing one registers its tools. One module per family.

    files.py             read_file, write_file, list_directory
    edit.py              replace_in_file, apply_patch
    workspace_search.py  find_files, search_in_files (file names and file contents)
    shell.py             run_command, run_shell_command
    project.py           get_project_info, install_dependencies
    syntax.py            get_ast, list_symbols, find_symbol (tree-sitter)
    code.py              find_definition, find_references, rename_symbol, get_diagnostics (servers)
    move.py              move_symbol (agent/refactor/move)
    navigation.py        type_info, call_hierarchy, find_implementations, type_hierarchy,
                         code_actions, apply_code_action (servers)
    symbol_edit.py       replace_symbol, insert_before_symbol, insert_after_symbol (syntax index)
    refactor.py          change_signature, safe_delete (servers + syntax tree; one plan, one undo)
    finish.py, memory.py finish, remember (toolset "agent")

A tool module may import the layers below it (semantic, syntax, shell, commit, the workspace,
the registry's `tool`); never the loop, the model client, the CLI or the daemon. Only the entry
points import these modules (agent/bootstrap.py `load_all_tools`, `load_tools`).
"""

# Importing a module registers its tools; agent/bootstrap.py imports them all (`load_all_tools`),
# or only the one a one-shot command needs (`load_tools`: `codeagent move` loads move.py alone).
TOOL_MODULES: tuple[str, ...] = ("code", "edit", "files", "finish", "memory", "move", "navigation", "project",
                                 "refactor", "shell", "symbol_edit", "syntax", "workspace_search")
