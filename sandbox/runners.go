package sandbox

import "path/filepath"

// projectRunners are the files in a project that make another program run
// code or lift its guards when it next opens the project, outside any
// sandbox: an editor's tasks (run when the folder opens) and settings (an
// agent's auto-approve lists), its launch configurations, an agent's
// settings and hooks, the project's MCP servers, direnv's .envrc, an IDE's
// run configurations. A folder is named whole. None is made where it is
// missing: the project would gain files it never had.
var projectRunners = []string{
	".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json",
	".claude", ".mcp.json", ".cursor", ".envrc",
	".idea/workspace.xml", ".idea/runConfigurations",
}

// ProjectRunners are the projectRunners of the project at root, as
// absolute paths: the sandbox keeps those that are there read-only, and
// the engine names those a confined command made in the next approval
// question.
func ProjectRunners(root string) []string {
	out := make([]string, 0, len(projectRunners))
	for _, p := range projectRunners {
		out = append(out, filepath.Join(root, filepath.FromSlash(p)))
	}
	return out
}
