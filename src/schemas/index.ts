// Every group's ops in one table: the route table, OpenAPI and the client read this. A group
// is an operation-id prefix: the ops `<group>.*` are declared in ./<group>.ts and bound in
// src/api/<group>.ts.
import { authOps } from './auth.ts'
import { historyOps } from './history.ts'
import { hostsOps } from './hosts.ts'
import { inputsOps } from './inputs.ts'
import { modelsOps } from './models.ts'
import { paperclipsOps } from './paperclips.ts'
import { serverOps } from './server.ts'
import { sessionsOps } from './sessions.ts'
import { settingsOps } from './settings.ts'
import { snapshotsOps } from './snapshots.ts'
import { storageOps } from './storage.ts'
import { workOps } from './work.ts'
import { workspacesOps } from './workspaces.ts'

export const ALL_OPS = {
  ...serverOps,
  ...settingsOps,
  ...storageOps,
  ...sessionsOps,
  ...inputsOps,
  ...historyOps,
  ...snapshotsOps,
  ...modelsOps,
  ...authOps,
  ...workOps,
  ...workspacesOps,
  ...paperclipsOps,
  ...hostsOps,
}
export type AllOps = typeof ALL_OPS
export type OpId = keyof AllOps
