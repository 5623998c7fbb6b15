// Strong ETags and conditional requests, shared by every op that has a validator.
import { HearthError } from '../schemas/problems.ts'

/** A strong ETag from a representation revision (any opaque string without quotes). */
export function etag(revision: string | number): string {
  return `"${String(revision)}"`
}

function listOf(header: string): string[] {
  return header
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
}

/**
 * If-Match: required (428 without), must equal the current strong ETag (412 otherwise).
 * `*` is refused like no If-Match (428): it matches any version, so it would let a change
 * overwrite one the client never read, which is what the required validator prevents.
 */
export function requireIfMatch(ifMatch: string | undefined, current: string | undefined): void {
  if (ifMatch === undefined) throw new HearthError('precondition_required', 'This operation needs If-Match')
  const tags = listOf(ifMatch)
  if (tags.includes('*'))
    throw new HearthError(
      'precondition_required',
      'If-Match: * is not a validator here: send the ETag last read',
    )
  if (current === undefined || !tags.includes(current)) {
    throw new HearthError('precondition_failed', 'If-Match does not match the current ETag')
  }
}

/** If-None-Match: * for create-only PUTs: required (428 without), 412 when the resource exists. */
export function requireCreateOnly(ifNoneMatch: string | undefined, exists: boolean): void {
  if (ifNoneMatch === undefined)
    throw new HearthError('precondition_required', 'This operation needs If-None-Match: *')
  if (ifNoneMatch.trim() !== '*') throw new HearthError('invalid_header', 'If-None-Match must be *')
  if (exists) throw new HearthError('precondition_failed', 'The resource already exists')
}

/** The opaque part of an entity tag, for weak comparison (RFC 9110 §8.8.3.2). */
function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag
}

/** If-None-Match on reads: true when the client's copy is current (answer 304). Weak comparison. */
export function notModified(ifNoneMatch: string | undefined, current: string): boolean {
  if (ifNoneMatch === undefined) return false
  const tags = listOf(ifNoneMatch)
  return tags.includes('*') || tags.some((t) => opaque(t) === opaque(current))
}
