// Re-rendering after a burst of changes: a stream may apply thousands of frames a second,
// and the screen needs to be drawn once per animation frame, not once per frame.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'

/** A function that asks for one render at the next animation frame, however often called. */
export function useRenderSoon(): () => void {
  const [, setTick] = useState(0)
  const pending = useRef(0)
  useEffect(() => () => cancelAnimationFrame(pending.current), [])
  return useCallback(() => {
    if (pending.current) return
    pending.current = requestAnimationFrame(() => {
      pending.current = 0
      setTick((n) => n + 1)
    })
  }, [])
}
