// The answer of /healthz ("ok") and /readyz ("ready").
import { Type } from 'typebox';

export const HealthStatusSchema = Type.Object({ status: Type.String() });
