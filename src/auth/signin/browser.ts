// The start of a browser or manual login: the listener first (its port is in the redirect
// URI), then the plugin's authorization URL, which may take a while (an MCP server's
// discovery and client registration run there). A refusal then is a failed login, as a
// busy fixed port is; the listener is released again.
import { type BrowserPlugin, SignInError } from '../../providers/shared/sign-in-plugin.ts'
import type { LoginRequest } from '../../schemas/auth.ts'
import {
  browserInstructions,
  type CallbackHandler,
  type CallbackListeners,
  freePort,
  PortBusyError,
} from './callbacks.ts'
import { instructionsOf, startFailure } from './device.ts'
import { type FlowSecrets, newFlowSecrets } from './pkce.ts'

export interface BrowserStart {
  secrets: FlowSecrets
  /** The listener's port (null: a manual flow, or none could be had). */
  port: number | null
  redirectUri: string
  url: string
  instructions: string
  /** Why the login failed at its start, or null. */
  failure: string | null
}

export async function startBrowser(input: {
  plugin: BrowserPlugin
  flow: LoginRequest['flow']
  listeners: CallbackListeners
  onCallback: CallbackHandler
  abort: AbortController
  onError: (err: unknown) => void
}): Promise<BrowserStart> {
  const { plugin, listeners, abort } = input
  const secrets = newFlowSecrets()
  let port: number | null = null
  let failure: string | null = null
  if (input.flow === 'browser') {
    try {
      port = await listeners.add(plugin.callback, secrets.state, input.onCallback)
    } catch (err) {
      if (!(err instanceof PortBusyError)) throw err
      failure = 'callback_port_busy'
    }
  }
  // A manual flow has no listener; a plugin that takes any port still needs one in its URI.
  const redirectPort = port ?? (plugin.callback.port === 0 ? await freePort() : plugin.callback.port)
  const redirectUri = `http://${plugin.callback.redirectHost}:${redirectPort}${plugin.callback.path}`
  const start = { secrets, port, redirectUri, url: '', failure }
  // The URL is made even when the port is busy: the failed login still shows where it went.
  const instructions = browserInstructions(plugin, input.flow, failure)
  try {
    const url = await plugin.authorize({ redirectUri, ...secrets, signal: abort.signal })
    return { ...start, url, instructions }
  } catch (err) {
    if (!abort.signal.aborted && !(err instanceof SignInError)) input.onError(err)
    if (port !== null) listeners.remove(port, secrets.state)
    if (failure) return { ...start, instructions }
    const why = abort.signal.aborted ? 'daemon_restarted' : startFailure(err)
    return { ...start, port: null, instructions: instructionsOf(err) ?? instructions, failure: why }
  }
}
