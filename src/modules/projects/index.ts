// The projects module's public surface: projects, their settings and encrypted secrets, and the
// checks on repository addresses. Other code imports this file, never the files beside it.
export { destinationOfProject } from './credential-binding.ts';
export { type RepositoryAccess, repositoryAddressProblem, repositoryPolicy } from './repository-address.ts';
export {
  CODE_HOST_KINDS,
  type CodeHostKind,
  type ModelPrice,
  ModelPriceSchema,
  type Project,
  type ProjectChanges,
  type ProjectSettings,
} from './schemas.ts';
export {
  deleteProjectSecret,
  listProjectSecrets,
  PROJECT_SECRET_NAMES,
  type ProjectSecretName,
  readBoundSecret,
  readProjectSecret,
  setProjectSecret,
  suspendedSecrets,
} from './secrets.ts';
export {
  createProject,
  findProject,
  getProject,
  listProjects,
  projectCount,
  updateProject,
} from './service.ts';
