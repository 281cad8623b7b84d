// C side of the flite engine: voice registration and streamed synthesis of
// one utterance, delivering audio through the Go callback vivaFliteChunk.

#include <stdint.h>
#include <flite.h>
#include "_cgo_export.h"

cst_voice *register_cmu_us_slt(const char *voxdir);

cst_voice *viva_flite_register(void)
{
	flite_init();
	return register_cmu_us_slt(NULL);
}

int viva_flite_probe_rate(cst_voice *voice)
{
	cst_wave *w = flite_text_to_wave("a", voice);
	int rate;

	if (w == NULL)
		return -1;
	rate = w->sample_rate;
	delete_wave(w);
	return rate;
}

static int viva_flite_chunk(const cst_wave *w, int start, int size, int last,
			    cst_audio_streaming_info *asi)
{
	(void)last;
	return vivaFliteChunk((uintptr_t)asi->userdata, w->samples + start,
			      size, w->sample_rate);
}

// viva_flite_synth synthesises text as one utterance. The streaming info is
// set on the utterance, not on the shared voice, so concurrent calls do not
// interfere. Returns 0 when done, 1 when the callback stopped synthesis, -1
// on failure.
int viva_flite_synth(cst_voice *voice, const char *text, uintptr_t handle,
		     int min_chunk_samples)
{
	cst_audio_streaming_info *asi;
	cst_utterance *u;
	int rc;

	asi = new_audio_streaming_info();
	asi->asc = viva_flite_chunk;
	asi->userdata = (void *)handle;
	asi->min_buffsize = min_chunk_samples;

	u = new_utterance();
	utt_set_input_text(u, text);
	// The utterance owns asi from here and frees it with itself.
	feat_set(u->features, "streaming_info", audio_streaming_info_val(asi));
	u = flite_do_synth(u, voice, utt_synth);
	if (u == NULL)
		return -1;
	rc = feat_present(u->features, "Interrupted") ? 1 : 0;
	delete_utterance(u);
	return rc;
}
