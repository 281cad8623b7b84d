// C side of the sphinx engine: quiet logging, decoder creation with the
// reason for a failure, and access to a decoder's cepstral mean estimate.

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <pocketsphinx.h>
#include <err.h>
#include <feat.h>
#include <cmn.h>

// Errors logged on this thread since the last viva_ps_new: decoders are
// created concurrently, so the reason for a failure is kept per thread.
static __thread char viva_errors[1024];

static void viva_log(void *user_data, err_lvl_t level, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	(void)user_data;
	if (level < ERR_ERROR)
		return;
	used = strlen(viva_errors);
	if (used + 3 >= sizeof(viva_errors))
		return;
	if (used > 0) {
		strcpy(viva_errors + used, "; ");
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(viva_errors + used, sizeof(viva_errors) - used, fmt, ap);
	va_end(ap);
}

// viva_ps_quiet replaces pocketsphinx's stderr logging with viva_log, which
// drops everything below ERROR, and stops the configuration dump that
// cmd_ln_init writes straight to the log file.
void viva_ps_quiet(void)
{
	err_set_logfp(NULL);
	err_set_callback(viva_log, NULL);
}

// viva_ps_new loads a decoder. On failure it returns NULL and copies the
// errors pocketsphinx logged into errbuf.
ps_decoder_t *viva_ps_new(const char *hmm, const char *lm, const char *dict,
			  char *errbuf, size_t errlen)
{
	cmd_ln_t *config;
	ps_decoder_t *ps = NULL;

	viva_errors[0] = '\0';
	// -fwdflat no: the flat-lexicon second pass runs at the end of the
	// utterance and costs about 180 ms there for no accuracy gain on
	// sentences; the lattice best path (-bestpath yes) is kept.
	config = cmd_ln_init(NULL, ps_args(), TRUE,
			     "-hmm", hmm, "-lm", lm, "-dict", dict,
			     "-fwdflat", "no", "-bestpath", "yes", NULL);
	if (config != NULL) {
		ps = ps_init(config);
		cmd_ln_free_r(config);
	} else if (viva_errors[0] == '\0') {
		snprintf(viva_errors, sizeof(viva_errors), "invalid configuration");
	}
	if (ps == NULL)
		snprintf(errbuf, errlen, "%s", viva_errors);
	return ps;
}

static cmn_t *viva_cmn(ps_decoder_t *ps)
{
	feat_t *feat = ps_get_feat(ps);

	return feat == NULL ? NULL : feat->cmn_struct;
}

// viva_ps_cmn_len is the length of the decoder's cepstral mean vector, 0
// when it normalises no means.
int viva_ps_cmn_len(ps_decoder_t *ps)
{
	cmn_t *cmn = viva_cmn(ps);

	return cmn == NULL ? 0 : cmn->veclen;
}

void viva_ps_cmn_get(ps_decoder_t *ps, mfcc_t *vec)
{
	cmn_t *cmn = viva_cmn(ps);

	if (cmn != NULL)
		cmn_live_get(cmn, vec);
}

void viva_ps_cmn_set(ps_decoder_t *ps, const mfcc_t *vec)
{
	cmn_t *cmn = viva_cmn(ps);

	if (cmn != NULL)
		cmn_live_set(cmn, vec);
}
