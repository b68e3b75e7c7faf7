package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/telegram"
)

// The Messaging settings page: the Telegram chats linked to the person, a
// link code to link one more, and unlinking. Without a bot the page says
// the server has none.

// MessagingPath is the Messaging settings page.
const MessagingPath = "/settings/messaging"

func (s *Site) registerMessagingRoutes() {
	s.page(http.MethodGet, MessagingPath, s.messagingPage)
	s.page(http.MethodPost, MessagingPath+"/link-code", s.messagingLinkCode)
	s.page(http.MethodPost, MessagingPath+"/chats/:chat/unlink", s.messagingUnlink)
}

type chatView struct {
	ID, Label, Linked string
}

type messagingData struct {
	Configured bool
	Pro        bool
	Chats      []chatView
	Code       string // a new link code, shown once
	Expires    string
	show       display // the person's timezone and date format, for the times shown
}

func (s *Site) messagingView(ctx context.Context, u finance.User) (messagingData, error) {
	d := messagingData{Configured: s.telegram != nil, Pro: u.Plan == finance.PlanPro}
	if s.telegram == nil {
		return d, nil
	}
	chats, err := s.telegram.Chats(ctx, u.ID)
	if err != nil {
		return d, err
	}
	if d.show, err = s.displayFor(ctx, u.ID); err != nil {
		return d, err
	}
	for _, c := range chats {
		d.Chats = append(d.Chats, chatView{ID: strconv.FormatInt(c.ChatID, 10), Label: c.Label, Linked: d.show.Time(&c.LinkedAt, "")})
	}
	return d, nil
}

func (s *Site) messagingPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.messagingView(r.Context(), u)
	if err != nil {
		return err
	}
	return s.render(w, r.Request, "messaging", pageView{Title: "Messaging", Nav: "settings", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[r.URL.Query().Get("notice")], Data: d})
}

// messagingLinkCode shows a new link code in this response only.
func (s *Site) messagingLinkCode(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	if s.telegram == nil {
		return httperr.RouteNotFound(r.Request)
	}
	p := pageView{Title: "Messaging", Nav: "settings", User: &u, CSRF: auth.CSRFToken(sid)}
	d, err := s.messagingView(r.Context(), u)
	if err != nil {
		return err
	}
	if u.Plan != finance.PlanPro {
		p.status = http.StatusPaymentRequired
		p.Error = "Telegram access is a Pro plan feature, like API access; no code was made."
	} else {
		code, expires, err := s.telegram.IssueLinkCode(r.Context(), u.ID)
		if err != nil {
			return err
		}
		d.Code, d.Expires = telegram.FormatLinkCode(code), d.show.Time(&expires, "")
	}
	p.Data = d
	return s.render(w, r.Request, "messaging", p)
}

func (s *Site) messagingUnlink(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	chat, perr := strconv.ParseInt(r.Param("chat"), 10, 64)
	if s.telegram == nil || perr != nil {
		return httperr.RouteNotFound(r.Request)
	}
	if err := s.telegram.Unlink(r.Context(), u.ID, chat); err != nil {
		return err
	}
	setPageHeaders(w.Header(), "")
	http.Redirect(w, r.Request, MessagingPath+"?notice=unlinked", http.StatusSeeOther)
	return nil
}
