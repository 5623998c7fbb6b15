// Client-generated identifiers: inputs and visits are PUT under a UUIDv7 the client makes, so
// a retried request is the same request.
export { v7 as uuidv7 } from 'uuid'
