// The bounds of one agent run: server defaults, each overridable per project (project settings
// maxSteps, maxTotalTokens, wallTimeSeconds). Hitting one ends the run with a stop reason, never
// with an error, so the work done so far can still be published.

export interface AgentLimits {
  /** Model calls (steps) per run. */
  maxSteps: number;
  /** Input plus output tokens over all steps of the run. Checked after each step, so the last
   * step may go past it. */
  maxTotalTokens: number;
  /** Wall-clock time for the whole run, model calls and tools included. */
  wallTimeMs: number;
  /** The same failing tool call (same tool, same arguments) this many times in a row means the
   * model is stuck. */
  stuckRepeats: number;
}

export const DEFAULT_AGENT_LIMITS: Readonly<AgentLimits> = Object.freeze({
  maxSteps: 40,
  maxTotalTokens: 1_000_000,
  wallTimeMs: 15 * 60 * 1000,
  stuckRepeats: 3,
});

/** The per-project overrides, as project settings store them. */
export interface ProjectLimitSettings {
  maxSteps?: number;
  maxTotalTokens?: number;
  wallTimeSeconds?: number;
}

export function resolveAgentLimits(
  settings: ProjectLimitSettings = {},
  serverDefaults: Readonly<AgentLimits> = DEFAULT_AGENT_LIMITS,
): AgentLimits {
  return {
    maxSteps: settings.maxSteps ?? serverDefaults.maxSteps,
    maxTotalTokens: settings.maxTotalTokens ?? serverDefaults.maxTotalTokens,
    wallTimeMs:
      settings.wallTimeSeconds !== undefined ? settings.wallTimeSeconds * 1000 : serverDefaults.wallTimeMs,
    stuckRepeats: serverDefaults.stuckRepeats,
  };
}
