// An error that carries a stable code from a closed set: the caller branches on `code` (to
// map it to a problem, a run's error event or an exit status), never on the message, which
// is for people. Subclasses only name themselves (`override readonly name = '…'`) and fix
// the set of codes; the name is written out because a bundler may rename a class.
export class CodedError<Code extends string> extends Error {
  readonly code: Code
  constructor(code: Code, message: string, options?: ErrorOptions) {
    super(message, options)
    this.code = code
  }
}
