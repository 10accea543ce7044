/* The public header compiles alone, under strict C11. */
#include <e2map.h>

int main(void)
{
	e2map_t *m = 0;

	return e2map_open("x", 0, &m) == 0 ? 0 : 1;
}
