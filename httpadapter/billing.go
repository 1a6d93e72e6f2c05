package httpadapter

import (
	"net/http"

	"github.com/qjobs/quantum"
)

// creditsBalance answers GET /api/v1/billing/credits/balance, which the
// public client's user_credits_value() reads.
func (h *handler) creditsBalance(w http.ResponseWriter, r *http.Request, u quantum.User) {
	q := &query{r: r}
	b, err := h.svc.CreditsBalance(r.Context(), u, q.str("organizationId"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, b)
}
