// Equivalent hosts of one API tried in order (a vendor that serves the same API from
// several hosts): the next host gets the request at once when one cannot be reached or
// answers 404 or 5xx. Never on any other 4xx: a refused token, a permission or a limit is
// the account's answer, the same on every host. The steps' HTTP layer (`fallbackUrls`,
// shared/http.ts) and the antigravity project calls both walk hosts this way.

/** Whether another host may answer instead: this one could not be reached (`null`) or answered 404 or 5xx. */
export function isHostFault(status: number | null): boolean {
  return status === null || status === 404 || status >= 500
}

/** The hosts of one request, in order, and the one being asked. */
export class HostSequence {
  readonly #hosts: readonly string[]
  #at = 0

  constructor(hosts: readonly string[]) {
    if (hosts.length === 0) throw new Error('a host sequence needs at least one host')
    this.#hosts = hosts
  }

  /** The host to ask now. */
  get current(): string {
    return this.#hosts[this.#at]
  }

  /**
   * After the current host failed with `status` (`null`: it could not be reached): moves
   * to the next host when the failure is the host's own and another host remains, and
   * says whether it did.
   */
  moveOn(status: number | null): boolean {
    if (!isHostFault(status) || this.#at >= this.#hosts.length - 1) return false
    this.#at++
    return true
  }
}
