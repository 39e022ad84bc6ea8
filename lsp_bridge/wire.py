"""What the bridge tells servers it can do (the `initialize` capabilities)."""

from __future__ import annotations

from lsprotocol import types as lsp


def client_capabilities() -> lsp.ClientCapabilities:
    """UTF-8 positions preferred (fewer conversions), UTF-16 accepted; documentChanges with file
    operations; progress, configuration and watched-file registration supported; pull diagnostics."""
    return lsp.ClientCapabilities(
        general=lsp.GeneralClientCapabilities(
            position_encodings=[lsp.PositionEncodingKind.Utf8, lsp.PositionEncodingKind.Utf16]),
        window=lsp.WindowClientCapabilities(work_done_progress=True),
        workspace=lsp.WorkspaceClientCapabilities(
            apply_edit=False,
            configuration=True,
            workspace_folders=True,
            workspace_edit=lsp.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[lsp.ResourceOperationKind.Create, lsp.ResourceOperationKind.Rename,
                                     lsp.ResourceOperationKind.Delete],
                failure_handling=lsp.FailureHandlingKind.Abort),
            did_change_configuration=lsp.DidChangeConfigurationClientCapabilities(dynamic_registration=True),
            did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=True, relative_pattern_support=True),
            diagnostics=lsp.DiagnosticWorkspaceClientCapabilities(refresh_support=False),
        ),
        text_document=lsp.TextDocumentClientCapabilities(
            synchronization=lsp.TextDocumentSyncClientCapabilities(dynamic_registration=True),
            definition=lsp.DefinitionClientCapabilities(link_support=True),
            implementation=lsp.ImplementationClientCapabilities(link_support=True),
            type_definition=lsp.TypeDefinitionClientCapabilities(link_support=True),
            references=lsp.ReferenceClientCapabilities(),
            hover=lsp.HoverClientCapabilities(content_format=[lsp.MarkupKind.Markdown, lsp.MarkupKind.PlainText]),
            call_hierarchy=lsp.CallHierarchyClientCapabilities(),
            type_hierarchy=lsp.TypeHierarchyClientCapabilities(),
            # Quick fixes as literals with their edits; the rest resolved on demand (codeAction/resolve).
            code_action=lsp.CodeActionClientCapabilities(
                code_action_literal_support=lsp.ClientCodeActionLiteralOptions(
                    code_action_kind=lsp.ClientCodeActionKindOptions(value_set=list(lsp.CodeActionKind))),
                is_preferred_support=True, disabled_support=True, data_support=True,
                resolve_support=lsp.ClientCodeActionResolveOptions(properties=["edit"])),
            rename=lsp.RenameClientCapabilities(prepare_support=True),
            publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True),
            diagnostic=lsp.DiagnosticClientCapabilities(dynamic_registration=True),
        ),
    )
