// LiveKit's agents-js voice pipeline, as its documentation builds one, for
// viva bench to measure beside viva's worker with the same candidate bots
// and the same fake OpenAI: Silero VAD, OpenAI transcription (whisper-1
// over the transcriptions endpoint, which the fake serves), an OpenAI
// chat model and OpenAI speech, every setting at its default.
//
// viva bench starts it as `node agent.mjs start` with LIVEKIT_URL,
// LIVEKIT_API_KEY, LIVEKIT_API_SECRET, OPENAI_API_KEY, OPENAI_BASE_URL and
// VIVA_BENCH_AGENT_NAME, the agent name its bots dispatch to.
import { fileURLToPath } from 'node:url';
import { cli, defineAgent, ServerOptions, voice } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import * as silero from '@livekit/agents-plugin-silero';

const instructions =
  'You are an interviewer holding a structured job interview by voice. ' +
  'Acknowledge each answer briefly and ask one question at a time.';

export default defineAgent({
  prewarm: async (proc) => {
    proc.userData.vad = await silero.VAD.load();
  },
  entry: async (ctx) => {
    await ctx.connect();
    const session = new voice.AgentSession({
      vad: ctx.proc.userData.vad,
      stt: new openai.STT({ model: 'whisper-1', useRealtime: false }),
      llm: new openai.LLM({ model: 'gpt-4o-mini' }),
      tts: new openai.TTS({ model: 'gpt-4o-mini-tts', voice: 'alloy' }),
    });
    await session.start({ agent: new voice.Agent({ instructions }), room: ctx.room });
    session.generateReply({ instructions: 'Greet the candidate and ask them to introduce themselves.' });
  },
});

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  cli.runApp(new ServerOptions({
    agent: fileURLToPath(import.meta.url),
    agentName: process.env.VIVA_BENCH_AGENT_NAME,
  }));
}
