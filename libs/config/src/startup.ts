import { ConfigError, readProjectConfig, resolveProjectConfigPath } from './project-config';
import { type ProjectConfig } from './project-config.schema';
import { loadSettings, type Settings, SettingsError } from './settings';

/** What a process starts from: its environment's settings and the project configuration they name. */
export interface StartupConfiguration {
  readonly settings: Settings;
  readonly config: ProjectConfig;
}

/** Reads both, or throws a ConfigError/SettingsError saying what is wrong (see isConfigurationError). */
export function readStartupConfiguration(env: NodeJS.ProcessEnv): StartupConfiguration {
  const settings = loadSettings(env);
  const config = readProjectConfig(resolveProjectConfigPath(settings.FRAMEDESK_CONFIG, settings.workspaceRoot));
  return { settings, config };
}

/** An error that means "the configuration is wrong": a process prints its message and refuses to start. */
export function isConfigurationError(error: unknown): error is ConfigError | SettingsError {
  return error instanceof ConfigError || error instanceof SettingsError;
}
