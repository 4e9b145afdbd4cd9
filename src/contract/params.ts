// The path parameters of the API's routes.
import { Type } from 'typebox';

export const ProjectParamsSchema = Type.Object({
  projectId: Type.String({ description: 'The project identifier (prj_...).' }),
});

export const JobParamsSchema = Type.Object({
  projectId: Type.String({ description: 'The project identifier (prj_...).' }),
  id: Type.String({ description: 'The job identifier (job_...).' }),
});
