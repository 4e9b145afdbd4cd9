import { defineErrors } from '../../../errors/app-error.ts';

export const collectErrors = defineErrors({
  origin_not_allowed: {
    status: 403,
    description:
      "The browser script's request came from an origin that is not in the project's allowedOrigins (or without an Origin header, or for an unknown project); nothing was counted.",
  },
});
