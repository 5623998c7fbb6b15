// Every group's ops in one table: the route table, OpenAPI and the client read this.
import { authOps } from './auth.ts'
import { catalogOps } from './catalog.ts'
import { contextOps } from './context.ts'
import { hostsOps } from './hosts.ts'
import { inputsOps } from './inputs-ops.ts'
import { kernelOps } from './kernel.ts'
import { modelsOps } from './models.ts'
import { paperclipsOps } from './paperclips.ts'
import { reloadOps } from './reload.ts'
import { serverOps } from './server.ts'
import { sessionsOps } from './sessions-ops.ts'
import { settingsOps } from './settings.ts'
import { storageOps } from './storage.ts'
import { workOps } from './work.ts'
import { workspacesOps } from './workspaces.ts'

export const ALL_OPS = {
  ...serverOps,
  ...settingsOps,
  ...storageOps,
  ...sessionsOps,
  ...inputsOps,
  ...contextOps,
  ...catalogOps,
  ...reloadOps,
  ...kernelOps,
  ...modelsOps,
  ...authOps,
  ...workOps,
  ...workspacesOps,
  ...paperclipsOps,
  ...hostsOps,
}
export type AllOps = typeof ALL_OPS
export type OpId = keyof AllOps
