#include "episode-private.h"

void
feed_person_free(FeedPerson *person)
{
	if (person == NULL)
		return;
	g_free(person->name);
	g_free(person->role);
	g_free(person->group);
	g_free(person->href);
	g_free(person->image);
	g_free(person);
}

const char *
feed_person_get_name(const FeedPerson *person)
{
	g_return_val_if_fail(person != NULL, NULL);
	return person->name;
}

const char *
feed_person_get_role(const FeedPerson *person)
{
	g_return_val_if_fail(person != NULL, NULL);
	return person->role;
}

const char *
feed_person_get_group(const FeedPerson *person)
{
	g_return_val_if_fail(person != NULL, NULL);
	return person->group;
}

const char *
feed_person_get_href(const FeedPerson *person)
{
	g_return_val_if_fail(person != NULL, NULL);
	return person->href;
}

const char *
feed_person_get_image(const FeedPerson *person)
{
	g_return_val_if_fail(person != NULL, NULL);
	return person->image;
}
