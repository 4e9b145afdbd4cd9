// Checks claims. Two kinds of proof:
//  - Web Bot Auth: a valid signature attributes the request to its Signature-Agent → ai,
//    verified, whatever the user agent says (a curated agent signing with that Signature-Agent
//    gives the name; an unknown signer is named by its host). A signed request from a non-AI
//    bot stays a bot, verified. A signature that does not verify is still a claim: a request
//    that says it is an automated agent is counted as ai, unverified, with the reason.
//  - Published IP ranges: an ai claim whose agent's operator publishes ranges is verified when
//    the request's IP lies in them.
// Everything else stays as the user-agent step left it: claimed agents are `unverified`.

import { isIP } from 'node:net';
import type { Agent } from '../agent-list.ts';
import type { ClassificationContext } from '../context.ts';
import type { ClassifiedView, IpEvidence, WebBotAuthEvidence } from '../types.ts';
import { WebBotAuthVerifier } from '../web-bot-auth/verifier.ts';
import type { PipelineState, Step, StepOutput } from './step.ts';

export function ipEvidence(agent: Agent | null | undefined, ip: string | undefined): IpEvidence {
  if (!agent?.ranges) return 'no_ranges';
  if (typeof ip !== 'string' || ip.trim() === '') return 'no_ip';
  let address = ip.trim();
  // IPv4 clients seen through an IPv6 socket arrive as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1]!;
  const family = isIP(address);
  if (family === 0) return 'invalid_ip';
  return agent.ranges.check(address, family === 6 ? 'ipv6' : 'ipv4') ? 'in_ranges' : 'outside_ranges';
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

function withSignature(
  view: ClassifiedView,
  evidence: WebBotAuthEvidence,
  signer: Agent | undefined,
): ClassifiedView {
  if (evidence.outcome === 'valid') {
    if (signer) {
      return {
        ...view,
        class: 'ai',
        agent: signer.name,
        operator: signer.operator,
        category: signer.category,
        verification: 'verified',
        evidence: { rule: 'web_bot_auth', webBotAuth: evidence },
      };
    }
    if (view.class === 'bot')
      return { ...view, verification: 'verified', evidence: { ...view.evidence, webBotAuth: evidence } };
    const host = hostOf(evidence.signatureAgent ?? '');
    return {
      ...view,
      class: 'ai',
      agent: host,
      operator: host,
      category: 'other_ai',
      verification: 'verified',
      evidence: { rule: 'web_bot_auth', webBotAuth: evidence },
    };
  }
  // Not verified: keep the class the user agent gave, unless the request only looks human and
  // names a signer, in which case it is an automated agent claiming an identity.
  if (view.class === 'ai' || view.class === 'bot' || evidence.signatureAgent === undefined) {
    return { ...view, evidence: { ...view.evidence, webBotAuth: evidence } };
  }
  const host = hostOf(evidence.signatureAgent);
  return {
    ...view,
    class: 'ai',
    agent: signer?.name ?? host,
    operator: signer?.operator ?? host,
    category: signer?.category ?? 'other_ai',
    verification: 'unverified',
    evidence: { rule: 'web_bot_auth', webBotAuth: evidence },
  };
}

function withIpCheck(state: PipelineState, view: ClassifiedView, signer: Agent | undefined): ClassifiedView {
  if (view.class !== 'ai' || view.verification === 'verified' || view.agent === '') return view;
  const agent = signer ?? state.agentEntry;
  const ip = ipEvidence(agent, state.record.ip);
  return {
    ...view,
    verification: ip === 'in_ranges' ? 'verified' : 'unverified',
    evidence: { ...view.evidence, ip },
  };
}

function finish(
  state: PipelineState,
  evidence: WebBotAuthEvidence | null,
  context: ClassificationContext,
): StepOutput {
  let view = state.view!;
  let signer: Agent | undefined;
  if (evidence !== null) {
    signer = evidence.signatureAgent
      ? context.agentsBySignatureOrigin.get(evidence.signatureAgent)
      : undefined;
    view = withSignature(view, evidence, signer);
  }
  // The IP check applies to whichever agent the view now names.
  const agentEntry = signer ?? (view.agent === state.view!.agent ? state.agentEntry : null);
  return { view: withIpCheck({ ...state, agentEntry }, view, signer), agentEntry };
}

export const verificationStep: Step = {
  name: 'verification',
  run(state, context) {
    if (state.view === undefined) return undefined;
    const verifier = context.webBotAuth;
    if (verifier === null || !WebBotAuthVerifier.carriesSignature(state.record))
      return finish(state, null, context);
    return verifier
      .verify(state.record, state.atSeconds)
      .then((evidence) => finish(state, evidence, context));
  },
};
