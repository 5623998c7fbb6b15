// Mouse reporting. The client asks the terminal for button events only (mode 1000) in the
// SGR encoding (1006), never for motion (1002/1003): the wheel scrolls the transcript and the
// pickers, and a drag with Shift held (Option in iTerm2, Fn in Terminal.app) still selects
// text natively, since terminals keep Shift-drag for selection while mouse reporting is on.
// HEARTH_MOUSE=off leaves reporting off altogether (plain drags select; the wheel then does
// what the terminal does on the alternate screen).

export const MOUSE_ON = '\x1b[?1000h\x1b[?1006h'
export const MOUSE_OFF = '\x1b[?1006l\x1b[?1000l'

export interface MouseEvent {
  /** The wheel turned up or down; undefined for a button press or release. */
  wheel?: 'up' | 'down'
}

/** Whether the client turns mouse reporting on (HEARTH_MOUSE=off or 0 leaves it off). */
export function mouseWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.HEARTH_MOUSE?.toLowerCase()
  return v !== 'off' && v !== '0' && v !== 'false'
}

/**
 * A mouse report in the SGR form (ESC [ < b ; x ; y M|m) or the legacy one (ESC [ M and
 * three bytes); undefined for any other input. Button codes 64 and 65 are the wheel; the
 * modifier bits (4 Shift, 8 Alt, 16 Ctrl) are ignored.
 */
export function parseMouse(data: string): MouseEvent | undefined {
  let code: number
  const sgr = /^\x1b\[<(\d+);\d+;\d+[Mm]$/.exec(data)
  if (sgr) code = Number(sgr[1])
  else if (data.length === 6 && data.startsWith('\x1b[M')) code = data.charCodeAt(3) - 32
  else return undefined
  const button = code & ~(4 | 8 | 16)
  if (button === 64) return { wheel: 'up' }
  if (button === 65) return { wheel: 'down' }
  return {}
}
