#include "episode-private.h"

void
feed_transcript_free(FeedTranscript *transcript)
{
	if (transcript == NULL)
		return;
	g_free(transcript->url);
	g_free(transcript->mime_type);
	g_free(transcript->language);
	g_free(transcript->rel);
	g_free(transcript);
}

const char *
feed_transcript_get_url(const FeedTranscript *transcript)
{
	g_return_val_if_fail(transcript != NULL, NULL);
	return transcript->url;
}

const char *
feed_transcript_get_mime_type(const FeedTranscript *transcript)
{
	g_return_val_if_fail(transcript != NULL, NULL);
	return transcript->mime_type;
}

const char *
feed_transcript_get_language(const FeedTranscript *transcript)
{
	g_return_val_if_fail(transcript != NULL, NULL);
	return transcript->language;
}

const char *
feed_transcript_get_rel(const FeedTranscript *transcript)
{
	g_return_val_if_fail(transcript != NULL, NULL);
	return transcript->rel;
}
